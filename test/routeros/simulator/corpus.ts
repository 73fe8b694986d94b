/** Realistic multi-menu configurations that must run clean and export back identically. */

export const smallOffice = `
/system identity set name=office-gw
/interface bridge add name=bridge-lan comment="LAN bridge"
/interface ethernet set [ find default-name=ether1 ] name=wan comment="ISP uplink"
:foreach port in={"ether2";"ether3";"ether4";"ether5"} do={ /interface bridge port add bridge=bridge-lan interface=$port }
/interface list add name=WAN
/interface list add name=LAN
/interface list member add list=WAN interface=wan
/interface list member add list=LAN interface=bridge-lan
/ip address add address=192.168.10.1/24 interface=bridge-lan comment="office LAN"
/ip address add address=203.0.113.10/29 interface=wan
/ip route add gateway=203.0.113.9 comment="default via ISP"
/ip pool add name=office-pool ranges=192.168.10.100-192.168.10.199
/ip dhcp-server add name=office interface=bridge-lan address-pool=office-pool lease-time=8h
/ip dhcp-server network add address=192.168.10.0/24 gateway=192.168.10.1 dns-server=192.168.10.1 domain=office.lan
/ip dhcp-server lease add address=192.168.10.20 mac-address=02:00:00:00:10:20 server=office comment="printer"
/ip dns set servers=1.1.1.1,8.8.8.8 allow-remote-requests=yes
/ip dns static add name=gw.office.lan address=192.168.10.1
/ip firewall filter add chain=input action=accept connection-state=established,related,untracked
/ip firewall filter add chain=input action=drop connection-state=invalid
/ip firewall filter add chain=input action=accept protocol=icmp
/ip firewall filter add chain=input action=drop in-interface-list=!LAN comment="drop all not coming from LAN"
/ip firewall nat add chain=srcnat action=masquerade out-interface-list=WAN
/ip service set telnet disabled=yes
/ip service set ftp disabled=yes
/system clock set time-zone-name=Europe/Berlin
/system ntp client set enabled=yes servers=0.pool.ntp.org,1.pool.ntp.org
/snmp set enabled=yes location="server room"
`;

export const vlanTrunk = `
/interface bridge add name=trunk vlan-filtering=yes
/interface bridge port add bridge=trunk interface=ether1
/interface bridge port add bridge=trunk interface=ether2 pvid=10
/interface bridge port add bridge=trunk interface=ether3 pvid=20
/interface bridge port add bridge=trunk interface=ether4 pvid=30
:foreach id in={10;20;30} do={
  /interface vlan add interface=trunk name=("vlan" . $id) vlan-id=$id
  /interface bridge vlan add bridge=trunk vlan-ids=$id tagged=trunk,ether1
  /ip address add address=("10.$id.0.1/24") interface=("vlan" . $id)
  /ip pool add name=("pool" . $id) ranges=("10.$id.0.100-10.$id.0.200")
  /ip dhcp-server add name=("dhcp-vlan" . $id) interface=("vlan" . $id) address-pool=("pool" . $id)
  /ip dhcp-server network add address=("10.$id.0.0/24") gateway=("10.$id.0.1") dns-server=("10.$id.0.1")
}
/interface bridge port set [find interface=ether4] disabled=yes
/ip dhcp-server set dhcp-vlan30 disabled=yes
`;

export const firewallWithLists = `
/ip firewall address-list add list=trusted address=10.0.0.0/8 comment="internal"
/ip firewall address-list add list=trusted address=192.0.2.15
/ip firewall address-list add list=blocked address=198.51.100.0/24
/ip firewall address-list add list=blocked address=bad.example.com
/ip firewall filter add chain=input action=accept connection-state=established,related
/ip firewall filter add chain=input action=drop src-address-list=blocked log=yes log-prefix="blocked: "
/ip firewall filter add chain=input action=accept src-address-list=trusted protocol=tcp dst-port=22,8291
/ip firewall filter add chain=input action=jump jump-target=icmp-check protocol=icmp
/ip firewall filter add chain=icmp-check action=accept limit=5,10:packet
/ip firewall filter add chain=icmp-check action=drop
/ip firewall filter add chain=input action=reject reject-with=icmp-port-unreachable
/ip firewall filter add chain=forward action=fasttrack-connection connection-state=established,related hw-offload=yes
/ip firewall filter add chain=forward action=drop dst-address-list=!trusted connection-nat-state=!dstnat place-before=0
/ip firewall nat add chain=dstnat action=dst-nat protocol=tcp dst-port=443 to-addresses=10.0.0.5 to-ports=8443
/ip firewall mangle add chain=prerouting action=mark-connection new-connection-mark=web passthrough=yes protocol=tcp dst-port=80,443
/ip firewall filter move [find chain=icmp-check action=drop] destination=[find chain=icmp-check action=accept]
/ip firewall filter disable [find action=reject]
`;
