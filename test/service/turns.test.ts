/** Work that takes turns per key (src/service/turns.ts): the job list of one router, one request at a time. */
import { describe, expect, it } from "vitest";
import { Turns } from "../../src/service/turns.js";

describe("turns per key", () => {
  it("gives a key to one holder at a time, in the order they came, and another key at once", async () => {
    const turns = new Turns();
    const order: string[] = [];
    const first = await turns.take("router-a");
    const second = turns.take("router-a").then((end) => {
      order.push("second");
      return end;
    });
    const third = turns.take("router-a").then((end) => {
      order.push("third");
      return end;
    });
    // another key does not wait for router-a's holder
    const other = await turns.take("router-b");
    order.push("other");
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["other"]);
    first();
    const endSecond = await second;
    expect(order).toEqual(["other", "second"]);
    endSecond();
    (await third)();
    other();
    expect(order).toEqual(["other", "second", "third"]);
    expect(turns.size).toBe(0);
  });

  it("ends a turn once however often it is ended, and forgets a key nobody holds or waits for", async () => {
    const turns = new Turns();
    const end = await turns.take("router-a");
    const next = turns.take("router-a");
    end();
    end(); // a second end (the answer sent, then the socket closed) must not end the next holder's turn
    const endNext = await next;
    const after = turns.take("router-a");
    let came = false;
    void after.then(() => {
      came = true;
    });
    await new Promise((resolve) => setImmediate(resolve)); // every promise reaction queued so far has run
    expect(came).toBe(false);
    endNext();
    (await after)();
    expect(turns.size).toBe(0);
  });
});
