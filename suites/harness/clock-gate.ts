/**
 * The run's clock gate (schedule.ts, the company): the checks of the company run at the same time, and each may advance
 * the target's virtual clock by a small step; none of them may see the clock jump inside a window of its own (an intent
 * and its confirm: the 5-minute pending and transaction windows; a SIWS sign-in: `Issued At` within 10 minutes). A
 * window and an advance never overlap: windows share the gate with windows, advances with advances (a target adds up
 * advances sent at once: specs/control.openapi.yaml), and each kind waits for the other in the order they asked (first
 * come, first served, a batch of one kind at a time), so that neither starves the other. A
 * window opened inside a window is the same window; an advance inside a window would wait for itself, so it is a suite
 * error.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Kind = 'window' | 'advance';

export class ClockGate {
  private kind: Kind | undefined;
  private open = 0;
  private readonly waiting: Array<{ kind: Kind; enter: () => void }> = [];

  /** The windows the current async context is inside of (a window within one is the same window). */
  private readonly inside = new AsyncLocalStorage<true>();

  /** `span` with no advance of the clock under way until it ends. */
  async window<T>(span: () => Promise<T>): Promise<T> {
    if (this.inWindow()) return await span();
    return await this.pass('window', () => this.inside.run(true, span));
  }

  /** `advance` with no window open until it ends. */
  async advance<T>(advance: () => Promise<T>): Promise<T> {
    if (this.inWindow())
      throw new Error('the clock is advanced inside a window of the check: the advance would wait for the window it is in');
    return await this.pass('advance', advance);
  }

  /** Is the current async context inside a window? */
  inWindow(): boolean {
    return this.inside.getStore() === true;
  }

  /** Windows and advances under way (for tests). */
  get underWay(): { kind: Kind | undefined; count: number } {
    return { kind: this.kind, count: this.open };
  }

  private async pass<T>(kind: Kind, body: () => Promise<T>): Promise<T> {
    if (this.open === 0 || (this.kind === kind && this.waiting.length === 0)) this.enter(kind);
    else await new Promise<void>((enter) => this.waiting.push({ kind, enter }));
    try {
      return await body();
    } finally {
      this.leave();
    }
  }

  private enter(kind: Kind): void {
    this.kind = kind;
    this.open++;
  }

  private leave(): void {
    this.open--;
    if (this.open > 0) return;
    this.kind = undefined;
    // The next batch: every waiter of the kind at the head of the queue, up to the first of the other kind.
    const kind = this.waiting[0]?.kind;
    while (kind !== undefined && this.waiting[0]?.kind === kind) {
      this.enter(kind);
      this.waiting.shift()!.enter();
    }
  }
}

/** The gate of this process's run: every company member's windows and advances pass it. */
export const clockGate = new ClockGate();
