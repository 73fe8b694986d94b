# 2026-11-19 08:15:27 by RouterOS 7.17
# software id = H3GX-77PL
#
# model = hAP ax3
/interface bridge
add name=bridge
/interface ethernet
set [ find default-name=ether1 ] comment=WAN
/interface list
add name=WAN
add name=LAN
/interface wifi
set [ find default-name=wifi1 ] configuration.mode=ap
/ip pool
add name=dhcp-pool ranges=192.168.50.10-192.168.50.250
/ip dhcp-server
add address-pool=dhcp-pool interface=bridge name=dhcp-lan
/ipv6 pool
add name=isp-pd prefix=2001:db8:4400::/48 prefix-length=64
/interface bridge port
add bridge=bridge interface=ether2
add bridge=bridge interface=ether3
add bridge=bridge interface=ether4
/ipv6 settings
set accept-router-advertisements=yes max-neighbor-entries=8192
/interface list member
add interface=ether1 list=WAN
add interface=bridge list=LAN
/ip address
add address=192.168.50.1/24 interface=bridge network=192.168.50.0
/ip dhcp-client
add interface=ether1 use-peer-dns=no
/ip dhcp-server network
add address=192.168.50.0/24 dns-server=192.168.50.1 gateway=192.168.50.1
/ip dns
set allow-remote-requests=yes servers=1.1.1.1,2606:4700:4700::1111
/ip firewall filter
add action=accept chain=input connection-state=established,related,untracked
add action=drop chain=input connection-state=invalid
add action=accept chain=input protocol=icmp
add action=drop chain=input in-interface-list=!LAN
add action=accept chain=forward connection-state=established,related,untracked
add action=drop chain=forward connection-state=invalid
add action=drop chain=forward connection-nat-state=!dstnat connection-state=new in-interface-list=WAN
/ip firewall nat
add action=masquerade chain=srcnat out-interface-list=WAN
/ipv6 address
add address=::1 from-pool=isp-pd interface=bridge
add address=2001:db8:ffff::2/64 advertise=no interface=ether1
/ipv6 dhcp-client
add add-default-route=yes interface=ether1 pool-name=isp-pd request=address,prefix
/ipv6 firewall address-list
add address=::/128 comment="unspecified address" list=bad_ipv6
add address=::1/128 comment=lo list=bad_ipv6
add address=2001:db8::/32 comment=documentation list=bad_ipv6
/ipv6 firewall filter
add action=accept chain=input connection-state=established,related,untracked
add action=drop chain=input connection-state=invalid
add action=accept chain=input protocol=icmpv6
add action=accept chain=input dst-port=546 protocol=udp src-address=fe80::/10
add action=drop chain=input in-interface-list=!LAN
add action=accept chain=forward connection-state=established,related,untracked
add action=drop chain=forward connection-state=invalid
add action=drop chain=forward src-address-list=bad_ipv6
add action=accept chain=forward protocol=icmpv6
add action=drop chain=forward in-interface-list=!LAN
/ipv6 nd
set [ find default=yes ] advertise-dns=yes
add interface=bridge ra-interval=20s-60s
/ipv6 route
add disabled=no distance=1 dst-address=2000::/3 gateway=2001:db8:ffff::1
/system clock
set time-zone-name=Europe/London
/system identity
set name=home-ds
/system ntp client
set enabled=yes
/system ntp client servers
add address=time.cloudflare.com
