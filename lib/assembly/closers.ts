/** What a start has brought up, taken down in the reverse order (the last started is the first closed). */
export class Closers {
  private readonly list: Array<() => Promise<void> | void> = [];

  add(closer: () => Promise<void> | void): void {
    this.list.push(closer);
  }

  /** Closes everything added so far, once. */
  async close(): Promise<void> {
    while (this.list.length > 0) await this.list.pop()!();
  }
}
