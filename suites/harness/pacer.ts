/**
 * The request budget: at most `maxRps` requests per second leave this process, whatever check sends them
 * (--max-rps). Conformance files run one at a time in one worker, so one pacer per process is the whole budget.
 */
export class Pacer {
  private next = 0;

  constructor(private readonly maxRps: number, private readonly now = () => Date.now(),
    private readonly sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))) {}

  /** Wait for this request's slot. 0 means no budget. */
  async slot(): Promise<void> {
    if (this.maxRps <= 0) return;
    const interval = 1000 / this.maxRps;
    const now = this.now();
    const at = Math.max(now, this.next);
    this.next = at + interval;
    if (at > now) await this.sleep(at - now);
  }
}

const pacers = new Map<number, Pacer>();

/** The process-wide pacer for a budget. */
export function pacerFor(maxRps: number): Pacer {
  let pacer = pacers.get(maxRps);
  if (!pacer) pacers.set(maxRps, (pacer = new Pacer(maxRps)));
  return pacer;
}
