# A factory default-configuration script in the style of RouterOS's defconf (run once on a reset router).
:global defconfMode "apply"
:local lanAddress "192.168.88.1/24"
:local lanNetwork "192.168.88.0/24"
:log info "defconf: applying"
/interface bridge add name=bridge disabled=no auto-mac=yes protocol-mode=rstp comment=defconf
:foreach port in={"ether2";"ether3";"ether4";"ether5"} do={
  /interface bridge port add bridge=bridge interface=$port comment=defconf
}
/interface list add name=WAN comment=defconf
/interface list add name=LAN comment=defconf
/interface list member add list=LAN interface=bridge comment=defconf
/interface list member add list=WAN interface=ether1 comment=defconf
/ip address add address=$lanAddress interface=bridge comment=defconf
/ip pool add name="default-dhcp" ranges=192.168.88.10-192.168.88.254
/ip dhcp-server add name=defconf address-pool="default-dhcp" interface=bridge lease-time=10m disabled=no
/ip dhcp-server network add address=$lanNetwork gateway=192.168.88.1 dns-server=192.168.88.1 comment="defconf"
/ip dns set allow-remote-requests=yes
/ip dns static add name=router.lan address=192.168.88.1 comment=defconf
/ip dhcp-client add interface=ether1 disabled=no comment="defconf"
/ip firewall nat add chain=srcnat out-interface-list=WAN ipsec-policy=out,none action=masquerade comment="defconf: masquerade"
/ip firewall filter {
  add chain=input action=accept connection-state=established,related,untracked comment="defconf: accept established,related,untracked"
  add chain=input action=drop connection-state=invalid comment="defconf: drop invalid"
  add chain=input action=accept protocol=icmp comment="defconf: accept ICMP"
  add chain=input action=accept dst-address=127.0.0.1 comment="defconf: accept to local loopback (for CAPsMAN)"
  add chain=input action=drop in-interface-list=!LAN comment="defconf: drop all not coming from LAN"
  add chain=forward action=accept ipsec-policy=in,ipsec comment="defconf: accept in ipsec policy"
  add chain=forward action=accept ipsec-policy=out,ipsec comment="defconf: accept out ipsec policy"
  add chain=forward action=fasttrack-connection connection-state=established,related comment="defconf: fasttrack"
  add chain=forward action=accept connection-state=established,related,untracked comment="defconf: accept established,related, untracked"
  add chain=forward action=drop connection-state=invalid comment="defconf: drop invalid"
  add chain=forward action=drop connection-state=new connection-nat-state=!dstnat in-interface-list=WAN comment="defconf: drop all from WAN not DSTNATed"
}
/ipv6 firewall address-list {
  add list=bad_ipv6 address=::/128 comment="defconf: unspecified address"
  add list=bad_ipv6 address=::1/128 comment="defconf: lo"
  add list=bad_ipv6 address=fec0::/10 comment="defconf: site-local"
  add list=bad_ipv6 address=::ffff:0.0.0.0/96 comment="defconf: ipv4-mapped"
}
/ipv6 firewall filter {
  add chain=input action=accept connection-state=established,related,untracked comment="defconf: accept established,related,untracked"
  add chain=input action=drop connection-state=invalid comment="defconf: drop invalid"
  add chain=input action=accept protocol=icmpv6 comment="defconf: accept ICMPv6"
  add chain=input action=accept protocol=udp dst-port=546 src-address=fe80::/10 comment="defconf: accept DHCPv6-Client prefix delegation."
  add chain=input action=drop in-interface-list=!LAN comment="defconf: drop everything else not coming from LAN"
  add chain=forward action=accept connection-state=established,related,untracked comment="defconf: accept established,related,untracked"
  add chain=forward action=drop connection-state=invalid comment="defconf: drop invalid"
  add chain=forward action=drop src-address-list=bad_ipv6 comment="defconf: drop packets with bad src ipv6"
  add chain=forward action=accept protocol=icmpv6 comment="defconf: accept ICMPv6"
  add chain=forward action=drop in-interface-list=!LAN comment="defconf: drop everything else not coming from LAN"
}
/ip neighbor discovery-settings set discover-interface-list=LAN
/tool mac-server set allowed-interface-list=LAN
/tool mac-server mac-winbox set allowed-interface-list=LAN
:if ([/interface bridge port print count-only] = 4) do={ :log info "defconf: bridge ports in place" }
/system identity set name=MikroTik
:log info "defconf: done"
