import type { StoredEntry } from './ports/records';

/**
 * An entry of a read window (ports/records.ts readWindow), its view and head parsed when first read:
 * every entry's timeline part is shown, but only the newest entry's view and head are read, and
 * parsing the others was most of a 50-entry read's CPU time and garbage.
 *
 * A window reads one head, the newest entry's version's (a version's head is stored once): an older
 * entry of the same version shares it; an older entry of another version has none to give, and
 * asking for it is a reader's mistake, said at once rather than answered wrongly.
 */
export class WindowEntry<E, V, H> implements StoredEntry<E, V, H> {
  #view: V | undefined;
  #head: H | undefined;

  constructor(
    readonly at: string,
    readonly entry: E,
    private readonly viewText: string,
    readonly headText: string | undefined,
  ) {}

  get view(): V {
    return (this.#view ??= JSON.parse(this.viewText) as V);
  }

  get head(): H {
    if (this.headText === undefined) throw new Error(`a read window holds the head of its newest entry's version only; the entry at ${this.at} is of another version`);
    return (this.#head ??= JSON.parse(this.headText) as H);
  }

  /** Serialises as the plain entry it stands for (its head when the window holds it). */
  toJSON(): Partial<StoredEntry<E, V, H>> {
    return this.headText === undefined ? { at: this.at, entry: this.entry, view: this.view } : { at: this.at, entry: this.entry, view: this.view, head: this.head };
  }
}
