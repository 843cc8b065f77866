/**
 * Stage throttling as API Gateway applies it: a token bucket holding up to the burst limit,
 * refilled at the rate limit per second; a request finding it empty is THROTTLED (429).
 */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
