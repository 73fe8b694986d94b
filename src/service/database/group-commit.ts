interface Pending<Item, Result> {
  readonly item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Group commit: items submitted while a batch is being written wait and go together into the next one, so
 * N concurrent writes (notifications received, deliveries acknowledged) cost one statement or transaction
 * instead of N queued one behind the other.
 * Each submitter still resolves only after the batch holding its item committed. A batch is all or nothing
 * (`write` runs it in one transaction or statement), so when it fails its items are written again one by one:
 * one bad item (text the database refuses, say) fails alone instead of taking its neighbours with it.
 */
export class GroupCommit<Item, Result> {
  private queue: Pending<Item, Result>[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: readonly Item[]) => Promise<readonly Result[]>,
    /** Bounds a transaction's length, so one batch does not hold the database for long. @default 64 */
    private readonly maxBatch = 64,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((entry) => entry.item));
        for (const [index, entry] of batch.entries()) entry.resolve(results[index] as Result);
      } catch (error) {
        if (batch.length === 1) batch[0]?.reject(error);
        else for (const entry of batch) await this.writeAlone(entry);
      }
    }
    this.writing = false;
  }

  private async writeAlone(entry: Pending<Item, Result>): Promise<void> {
    try {
      const [result] = await this.write([entry.item]);
      entry.resolve(result as Result);
    } catch (error) {
      entry.reject(error);
    }
  }
}
