/**
 * The reachability check on simulated routers: each kind of lock-out is caught with the rule or setting
 * named; changes that leave the service's way in alone pass.
 */
import { describe, expect, it } from "vitest";
import {
  type ChangeReachability,
  checkChange,
  type ServicePath,
} from "../../../../src/routeros/simulator/reachability/index.js";
import type { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";
import { freshRouter, run } from "../helpers.js";

/** An edge router: uplink ether1 10.0.0.1/24 (the service at 10.0.0.5 is on it), a LAN bridge, a mgmt VLAN. */
const EDGE = `
/interface bridge add name=bridge1
/interface bridge port add bridge=bridge1 interface=ether2
/interface bridge port add bridge=bridge1 interface=ether3
/interface vlan add name=mgmt99 vlan-id=99 interface=bridge1
/interface list add name=LAN
/interface list add name=WAN
/interface list member add list=WAN interface=ether1
/interface list member add list=LAN interface=bridge1
/interface list member add list=LAN interface=mgmt99
/ip address add address=10.0.0.1/24 interface=ether1
/ip address add address=192.168.88.1/24 interface=bridge1
/ip address add address=172.16.99.1/24 interface=mgmt99
/ip route add dst-address=0.0.0.0/0 gateway=10.0.0.254
/ip firewall address-list add list=mgmt address=10.0.0.0/24
/ip firewall address-list add list=mgmt address=203.0.113.0/24
/ip firewall filter add chain=input action=accept connection-state=established,related
/ip firewall filter add chain=input action=accept protocol=icmp
/ip firewall filter add chain=input action=accept src-address-list=mgmt
/ip firewall filter add chain=input action=drop in-interface-list=!LAN
`;

const SERVICE: ServicePath = {
  direction: "inbound",
  source: "10.0.0.5",
  destination: "10.0.0.1",
  protocol: "tcp",
  port: 8729,
};

async function routerWith(script: string): Promise<SimulatedRouter> {
  const router = freshRouter("edge-1");
  await run(router, script);
  return router;
}

async function change(
  base: string,
  script: string,
  path: ServicePath = SERVICE,
): Promise<ChangeReachability> {
  const before = await routerWith(base);
  const after = freshRouter("edge-1");
  after.restore(before.snapshot());
  await run(after, script);
  return checkChange(before, after, path);
}

function reasonOf(verdict: ChangeReachability): string {
  if (verdict.status !== "cut") expect.fail(`expected a cut, got ${JSON.stringify(verdict)}`);
  return verdict.reason;
}

describe("a change that cuts the service off", () => {
  it("names the filter rule that drops the service's address (placed first)", async () => {
    // GIVEN the edge router WHEN a drop for the service's address goes to the top of chain input
    const verdict = await change(
      EDGE,
      "/ip firewall filter add chain=input action=drop src-address=10.0.0.5 place-before=0 comment=oops",
    );
    // THEN the rule is named by its place in the chain and where print shows it
    expect(reasonOf(verdict)).toBe(
      'rule 1 of chain input drops 10.0.0.5 to tcp/8729 (/ip firewall filter number 0, "oops")',
    );
  });

  it("names a rule in a chain reached by a jump", async () => {
    const verdict = await change(
      EDGE,
      `/ip firewall filter add chain=input action=jump jump-target=guard place-before=0
/ip firewall filter add chain=guard action=return protocol=icmp
/ip firewall filter add chain=guard action=reject protocol=tcp dst-port=8728-8729`,
    );
    expect(reasonOf(verdict)).toBe(
      "rule 2 of chain guard rejects 10.0.0.5 to tcp/8729 (/ip firewall filter number 6)",
    );
  });

  it("names the raw prerouting rule", async () => {
    const verdict = await change(
      EDGE,
      "/ip firewall raw add chain=prerouting action=drop src-address=10.0.0.0/24 dst-port=8729 protocol=tcp",
    );
    expect(reasonOf(verdict)).toBe(
      "rule 1 of chain prerouting drops 10.0.0.5 to tcp/8729 (/ip firewall raw number 0)",
    );
  });

  it("follows an address list: the service's address taken off the list the accept rule reads", async () => {
    const verdict = await change(EDGE, "/ip firewall address-list remove [find list=mgmt]");
    expect(reasonOf(verdict)).toBe(
      "rule 4 of chain input drops 10.0.0.5 to tcp/8729 (/ip firewall filter number 3)",
    );
  });

  it("follows an interface list: the uplink put in no list the drop rule spares", async () => {
    const verdict = await change(
      EDGE,
      `/ip firewall filter set [find src-address-list=mgmt] src-address-list=other
/interface list member remove [find interface=ether1]`,
    );
    expect(reasonOf(verdict)).toContain("rule 4 of chain input drops 10.0.0.5 to tcp/8729");
  });

  it("names /ip service: disabled, moved to another port, restricted to other addresses", async () => {
    expect(reasonOf(await change(EDGE, "/ip service disable api-ssl"))).toBe(
      "/ip service api-ssl is disabled",
    );
    expect(reasonOf(await change(EDGE, "/ip service set api-ssl port=8730"))).toBe(
      "/ip service api-ssl listens on tcp/8730, not tcp/8729",
    );
    expect(reasonOf(await change(EDGE, "/ip service set api-ssl address=192.168.88.0/24"))).toBe(
      "/ip service api-ssl takes connections only from 192.168.88.0/24, not from 10.0.0.5",
    );
  });

  it("names the management interface disabled, its address removed or changed", async () => {
    expect(reasonOf(await change(EDGE, "/interface ethernet disable ether1"))).toBe(
      "interface ether1 is disabled",
    );
    expect(reasonOf(await change(EDGE, "/ip address remove [find address=10.0.0.1/24]"))).toBe(
      "10.0.0.1 is no longer an address of the router (it was on ether1)",
    );
    expect(
      reasonOf(await change(EDGE, "/ip address set [find address=10.0.0.1/24] address=10.0.0.2/24")),
    ).toBe("10.0.0.1 is no longer an address of the router (it was on ether1)");
    expect(reasonOf(await change(EDGE, "/ip address disable [find address=10.0.0.1/24]"))).toBe(
      "/ip address 10.0.0.1 is disabled (it was on ether1)",
    );
    expect(reasonOf(await change(EDGE, "/ip address set [find address=10.0.0.1/24] interface=ether4"))).toBe(
      "/ip address 10.0.0.1 moved from ether1 to ether4",
    );
  });

  it("names the route back removed when the service is not on a connected network", async () => {
    const remote: ServicePath = { ...SERVICE, source: "203.0.113.9" };
    expect(reasonOf(await change(EDGE, "/ip route remove [find dst-address=0.0.0.0/0]", remote))).toBe(
      "the router has no route to 203.0.113.9: its replies to 203.0.113.9 cannot leave",
    );
  });

  describe("bridges", () => {
    const viaBridge: ServicePath = {
      direction: "inbound",
      source: "192.168.88.10",
      destination: "192.168.88.1",
      protocol: "tcp",
      port: 8729,
      ingressPort: "ether2",
    };
    const viaVlan: ServicePath = { ...viaBridge, source: "172.16.99.10", destination: "172.16.99.1" };

    it("names the port the service comes in on taken off the bridge", async () => {
      expect(
        reasonOf(await change(EDGE, "/interface bridge port remove [find interface=ether2]", viaBridge)),
      ).toBe("ether2, the port the service comes in on, is no longer an enabled port of bridge bridge1");
    });

    it("without a known port, names a bridge left with no port", async () => {
      const { ingressPort: _unknown, ...anyPort } = viaBridge;
      expect(reasonOf(await change(EDGE, "/interface bridge port remove [find]", anyPort))).toBe(
        "bridge bridge1 has no enabled port left",
      );
    });

    it("names VLAN filtering turned on without the management VLAN passed to the router", async () => {
      const verdict = await change(
        EDGE,
        `/interface bridge vlan add bridge=bridge1 vlan-ids=10 tagged=bridge1,ether2
/interface bridge set bridge1 vlan-filtering=yes`,
        viaVlan,
      );
      expect(reasonOf(verdict)).toBe(
        "bridge bridge1 filters VLANs and no /interface bridge vlan entry passes vlan 99 to the router (tagged=bridge1)",
      );
    });

    it("passes VLAN filtering that carries the management VLAN on the service's port", async () => {
      const verdict = await change(
        EDGE,
        `/interface bridge vlan add bridge=bridge1 vlan-ids=99 tagged=bridge1,ether2
/interface bridge set bridge1 vlan-filtering=yes`,
        viaVlan,
      );
      expect(verdict.status).toBe("kept");
    });
  });

  describe("a router that connects out to the service (the public service)", () => {
    const outbound: ServicePath = { direction: "outbound", protocol: "tcp", port: 443 };

    it("names the default route removed", async () => {
      expect(reasonOf(await change(EDGE, "/ip route remove [find dst-address=0.0.0.0/0]", outbound))).toBe(
        "the router has no route to addresses beyond its own networks",
      );
    });

    it("names an output rule dropping tcp/443", async () => {
      expect(
        reasonOf(
          await change(
            EDGE,
            "/ip firewall filter add chain=output action=drop protocol=tcp dst-port=443",
            outbound,
          ),
        ),
      ).toBe(
        "rule 1 of chain output drops the router's connection to the service on tcp/443 (/ip firewall filter number 4)",
      );
    });

    it("passes a drop-all input chain after accepting established: the replies are established", async () => {
      const verdict = await change(EDGE, "/ip firewall filter add chain=input action=drop", outbound);
      expect(verdict.status).toBe("kept");
    });
  });
});

describe("a change that leaves the service's way in", () => {
  it("passes a drop for another port and a drop-all after the accept of the service's list", async () => {
    expect(
      (
        await change(
          EDGE,
          "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=22 place-before=0",
        )
      ).status,
    ).toBe("kept");
    expect((await change(EDGE, "/ip firewall filter add chain=input action=drop")).status).toBe("kept");
  });

  it("passes a rule for another address, and a disabled drop", async () => {
    expect(
      (
        await change(
          EDGE,
          "/ip firewall filter add chain=input action=drop src-address=10.0.0.6 place-before=0",
        )
      ).status,
    ).toBe("kept");
    expect(
      (await change(EDGE, "/ip firewall filter add chain=input action=drop disabled=yes place-before=0"))
        .status,
    ).toBe("kept");
  });

  it("passes moving the address-list accept above the established accept", async () => {
    expect((await change(EDGE, "/ip firewall filter move [find src-address-list=mgmt] 0")).status).toBe(
      "kept",
    );
  });

  it("does not decide a rule on what it does not know, and lists it", async () => {
    // GIVEN a path whose source is not known WHEN a drop for one source is added
    const { source: _unknown, ...anySource } = SERVICE;
    const verdict = await change(
      EDGE,
      "/ip firewall filter add chain=input action=drop src-address=10.0.0.5 place-before=0",
      anySource,
    );
    // THEN the path is kept, and the rule is listed as undecided
    if (verdict.status !== "kept") expect.fail(JSON.stringify(verdict));
    expect(verdict.undecided[0]).toBe(
      "rule 1 of chain input (/ip firewall filter number 0) matches on src-address",
    );
  });

  it("says so when the path is cut before the change already", async () => {
    const verdict = await change(
      `${EDGE}\n/ip service disable api-ssl`,
      "/ip firewall filter add chain=input action=drop",
    );
    expect(verdict.status).toBe("unknown");
  });
});

describe("the management address when none is given", () => {
  it("is the uplink's address: the network holding the default route's gateway", async () => {
    const { destination: _unknown, ...learned } = SERVICE;
    const verdict = await change(
      EDGE,
      "/ip firewall filter add chain=input action=drop in-interface=ether1 place-before=0",
      learned,
    );
    expect(reasonOf(verdict)).toContain("rule 1 of chain input drops 10.0.0.5 to tcp/8729");
    expect(verdict.path).toBe("10.0.0.5 to 10.0.0.1 tcp/8729 (api-ssl, on ether1)");
  });
});
