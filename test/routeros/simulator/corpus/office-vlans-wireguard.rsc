# 2026-11-21 14:02:10 by RouterOS 7.18.2
# software id = 9ZT1-ABCD
#
# model = CCR2004-1G-12S+2XS
/interface bridge
add name=br-core vlan-filtering=yes arp-timeout=5m
/interface ethernet
set [ find default-name=ether1 ] comment="uplink ISP"
set [ find default-name=ether2 ] comment="trunk to core switch"
/interface wireguard
add listen-port=13231 mtu=1420 name=wg-office private-key="yJ6n0VQ3q6wHc2p8d5Lq7n3b1Xw9aZ0cV4sT2eR1uPk="
/interface vlan
add interface=br-core name=vlan10-staff vlan-id=10
add interface=br-core name=vlan20-guest vlan-id=20
add interface=br-core name=vlan30-voip vlan-id=30
add interface=br-core name=vlan99-mgmt vlan-id=99
/interface list
add name=WAN
add name=LAN
add name=MGMT
/ip pool
add name=pool-staff ranges=10.10.10.100-10.10.10.250
add name=pool-guest ranges=10.10.20.10-10.10.20.250
add name=pool-voip ranges=10.10.30.10-10.10.30.200
/ip dhcp-server
add address-pool=pool-staff interface=vlan10-staff lease-time=8h name=dhcp-staff
add address-pool=pool-guest interface=vlan20-guest lease-time=1h name=dhcp-guest
add address-pool=pool-voip interface=vlan30-voip lease-time=1d name=dhcp-voip
/queue simple
add max-limit=20M/20M name=guest-limit target=10.10.20.0/24
add max-limit=50M/50M name=voip-priority priority=1/1 target=10.10.30.0/24
/interface bridge port
add bridge=br-core interface=ether2 frame-types=admit-only-vlan-tagged
add bridge=br-core interface=ether3 pvid=10 broadcast-flood=yes
add bridge=br-core interface=ether4 pvid=30
/interface bridge vlan
add bridge=br-core tagged=br-core,ether2 untagged=ether3 vlan-ids=10
add bridge=br-core tagged=br-core,ether2 vlan-ids=20
add bridge=br-core tagged=br-core,ether2 untagged=ether4 vlan-ids=30
add bridge=br-core tagged=br-core,ether2 vlan-ids=99
/interface list member
add interface=ether1 list=WAN
add interface=vlan10-staff list=LAN
add interface=vlan20-guest list=LAN
add interface=vlan30-voip list=LAN
add interface=vlan99-mgmt list=MGMT
add interface=wg-office list=MGMT
/interface wireguard peers
add allowed-address=10.99.0.2/32 comment=laptop-anna interface=wg-office name=anna public-key="Qm7k1s9vZ3dH2fP0aL8wE5rT6yU4iO1pA2sD3fG4hJ0="
add allowed-address=10.99.0.3/32 comment=laptop-ben interface=wg-office name=ben persistent-keepalive=25s public-key="Rk2l3t0wA4eI3gQ1bM9xF6sU7zV5jP2qB3tE4gH5iK1="
/ip address
add address=203.0.113.10/29 interface=ether1 network=203.0.113.8
add address=10.10.10.1/24 interface=vlan10-staff network=10.10.10.0
add address=10.10.20.1/24 interface=vlan20-guest network=10.10.20.0
add address=10.10.30.1/24 interface=vlan30-voip network=10.10.30.0
add address=10.10.99.1/24 interface=vlan99-mgmt network=10.10.99.0
add address=10.99.0.1/24 interface=wg-office network=10.99.0.0
/ip dhcp-server network
add address=10.10.10.0/24 dns-server=10.10.10.1 domain=office.lan gateway=10.10.10.1
add address=10.10.20.0/24 dns-server=1.1.1.1 gateway=10.10.20.1
add address=10.10.30.0/24 dns-server=10.10.30.1 gateway=10.10.30.1 ntp-server=10.10.30.1
/ip dns
set allow-remote-requests=yes servers=9.9.9.9,149.112.112.112
/ip firewall address-list
add address=10.10.99.0/24 list=mgmt-nets
add address=10.99.0.0/24 list=mgmt-nets
add address=198.51.100.0/24 list=partner
/ip firewall filter
add action=accept chain=input connection-state=established,related
add action=drop chain=input connection-state=invalid
add action=accept chain=input dst-port=13231 protocol=udp comment="wireguard"
add action=accept chain=input src-address-list=mgmt-nets
add action=accept chain=input in-interface-list=LAN dst-port=53 protocol=udp
add action=drop chain=input comment="drop the rest"
add action=fasttrack-connection chain=forward connection-state=established,related hw-offload=yes
add action=accept chain=forward connection-state=established,related
add action=drop chain=forward in-interface=vlan20-guest out-interface-list=!WAN comment="guests reach the internet only"
add action=drop chain=forward connection-nat-state=!dstnat in-interface-list=WAN
/ip firewall nat
add action=masquerade chain=srcnat out-interface-list=WAN
/ip route
add disabled=no distance=1 dst-address=0.0.0.0/0 gateway=203.0.113.9 routing-table=main scope=30 suppress-hw-offload=no target-scope=10
/ip service
set telnet disabled=yes
set ftp disabled=yes
set www disabled=yes
set ssh address=10.10.99.0/24,10.99.0.0/24
set winbox address=10.10.99.0/24,10.99.0.0/24
/snmp community
add addresses=10.10.99.0/24 name=office-ro
/snmp
set contact=it@office.example enabled=yes location="server room"
/system clock
set time-zone-name=Europe/Riga
/system identity
set name=office-edge
/system ntp client
set enabled=yes
/system ntp client servers
add address=pool.ntp.org
/system ntp server
set enabled=yes
/user group
add name=helpdesk policy=read,test,winbox,!write,!policy
