// Key changes heard from the database (migration 0024: a revocation, a roll's expiry, new scopes, a deletion, whoever
// wrote them, on whichever instance): the key cache forgets the key at once, so that every instance refuses a revoked
// key within the notification's delay instead of the cache's TTL (KEY_CACHE_TTL_SECONDS, 5 s by default, stays the
// bound when a notification is lost). While the listening connection is lost nothing is heard: once it listens
// again the cache forgets every key, since any of them may have changed meanwhile.
import type { Database } from "@/db/client";
import type { KeyCache } from "./cache";

// The channel of migration 0024's notifications; their payload is the key's id.
export const KEY_CHANNEL = "api_keys";

// One instance's subscription to key changes, for one cache.
export class KeyBroadcast {
  private unlisten: (() => Promise<void>) | undefined;
  private starting: Promise<void> | undefined;
  private lost = false;
  /** Notifications heard, and times the cache was emptied after a lost connection (for tests and logs). */
  heard = 0;
  resets = 0;

  constructor(private readonly cache: KeyCache) {}

  /** Listens on the database (once; a driver that cannot listen leaves the TTL alone at work). */
  start(db: Pick<Database, "listen">): Promise<void> {
    if (!db.listen) return Promise.resolve();
    this.starting ??= db
      .listen(
        KEY_CHANNEL,
        (id) => {
          this.heard++;
          this.cache.forgetKeyId(id);
        },
        (listening) => {
          if (!listening) {
            this.lost = true;
            return;
          }
          if (!this.lost) return;
          this.lost = false;
          this.resets++;
          this.cache.clear();
        },
      )
      .then(
        (unlisten) => {
          this.unlisten = unlisten;
        },
        (err: unknown) => {
          this.starting = undefined;
          console.error("[keys] could not listen for key changes; the cache's TTL bounds them:", err);
        },
      );
    return this.starting;
  }

  /** Stops listening. */
  async stop(): Promise<void> {
    await this.starting;
    this.starting = undefined;
    await this.unlisten?.().catch(() => undefined);
    this.unlisten = undefined;
  }
}
