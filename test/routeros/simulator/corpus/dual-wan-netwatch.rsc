# 2026-11-18 21:40:03 by RouterOS 7.16.2
# software id = Q7RT-M2LX
#
# model = RB5009UG+S+
/interface bridge
add name=bridge-lan
/interface ethernet
set [ find default-name=ether1 ] comment="ISP A fibre"
set [ find default-name=ether2 ] comment="ISP B LTE router"
/interface list
add name=WAN
add name=LAN
/ip pool
add name=lan-pool ranges=172.16.0.100-172.16.0.200
/ip dhcp-server
add address-pool=lan-pool interface=bridge-lan name=lan
/routing table
add disabled=no fib name=to-isp-a
add disabled=no fib name=to-isp-b
/interface bridge port
add bridge=bridge-lan interface=ether3
add bridge=bridge-lan interface=ether4
add bridge=bridge-lan interface=ether5
/interface list member
add interface=ether1 list=WAN
add interface=ether2 list=WAN
add interface=bridge-lan list=LAN
/ip address
add address=172.16.0.1/24 interface=bridge-lan network=172.16.0.0
add address=100.64.10.2/30 interface=ether1 network=100.64.10.0
add address=192.168.8.2/24 interface=ether2 network=192.168.8.0
/ip dhcp-server network
add address=172.16.0.0/24 dns-server=172.16.0.1 gateway=172.16.0.1
/ip dns
set allow-remote-requests=yes servers=1.1.1.1,8.8.8.8
/ip firewall filter
add action=accept chain=input connection-state=established,related
add action=drop chain=input connection-state=invalid
add action=accept chain=input protocol=icmp
add action=drop chain=input in-interface-list=WAN
add action=accept chain=forward connection-state=established,related
add action=drop chain=forward connection-state=invalid
add action=drop chain=forward connection-nat-state=!dstnat in-interface-list=WAN
/ip firewall mangle
add action=mark-connection chain=prerouting connection-mark=no-mark in-interface=ether1 new-connection-mark=isp-a passthrough=yes
add action=mark-connection chain=prerouting connection-mark=no-mark in-interface=ether2 new-connection-mark=isp-b passthrough=yes
add action=mark-routing chain=output connection-mark=isp-a new-routing-mark=to-isp-a passthrough=no
add action=mark-routing chain=output connection-mark=isp-b new-routing-mark=to-isp-b passthrough=no
/ip firewall nat
add action=masquerade chain=srcnat out-interface=ether1
add action=masquerade chain=srcnat out-interface=ether2
/ip route
add comment=isp-a-check disabled=no distance=1 dst-address=8.8.4.4/32 gateway=100.64.10.1 routing-table=main scope=10 target-scope=10
add check-gateway=ping comment=default-isp-a disabled=no distance=1 dst-address=0.0.0.0/0 gateway=100.64.10.1 routing-table=main scope=30 target-scope=10
add comment=default-isp-b disabled=no distance=2 dst-address=0.0.0.0/0 gateway=192.168.8.1 routing-table=main scope=30 target-scope=10
add disabled=no distance=1 dst-address=0.0.0.0/0 gateway=100.64.10.1 routing-table=to-isp-a scope=30 target-scope=10
add disabled=no distance=1 dst-address=0.0.0.0/0 gateway=192.168.8.1 routing-table=to-isp-b scope=30 target-scope=10
/system clock
set time-zone-name=America/New_York
/system identity
set name=edge-dual-wan
/system scheduler
add interval=1d name=nightly-backup on-event="/system backup save name=nightly" policy=ftp,reboot,read,write,policy,test,password,sniff,sensitive,romon start-date=2026-11-18 start-time=03:00:00
/system script
add dont-require-permissions=no name=failover-notify owner=admin policy=read,write,test source=":log warning \"wan failover\""
/tool e-mail
set from=router@example.net port=587 server=smtp.example.net tls=starttls user=router@example.net
/tool netwatch
add comment="ISP A health" down-script="/ip route disable [find comment=default-isp-a]\r\n/system script run failover-notify" host=8.8.4.4 interval=10s timeout=1s type=icmp up-script="/ip route enable [find comment=default-isp-a]"
add comment="LTE router" host=192.168.8.1 interval=30s type=simple
/tool romon
set enabled=yes
