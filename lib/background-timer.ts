// A background task of the runtime on a timer: first `firstMs` after start(), then `everyMs` after each run ends (a
// long run never overlaps the next). The timer never keeps the process alive; stop() cancels the next run, waits for
// the one under way and tells it (`stopping`) so that a long one can end early. The change log's retention and the
// products' documents' refresher run on it.
export class BackgroundTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  private halted = false;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly timing: { firstMs: number; everyMs: number },
  ) {}

  /** Whether stop() was called (and start() not since): a run under way ends as soon as it can. */
  get stopping(): boolean {
    return this.halted;
  }

  /** Plans the first run (once; a second start does nothing). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halted = false;
    this.schedule(this.timing.firstMs);
  }

  /** Cancels the next run and waits for one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.halted = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run()
        .catch(() => undefined)
        .then(() => {
          this.running = undefined;
          this.schedule(this.timing.everyMs);
        });
    }, ms);
    this.timer.unref();
  }
}
