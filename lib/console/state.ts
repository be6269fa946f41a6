// The console's part of the runtime: the blocks of sign-in attempts that keep failing, and the paths of the OpenAPI
// document a changelog entry may name.
import { BoundedMap } from "@/lib/bounded-map";
import type { RateLimiters } from "@/lib/rate-limit/limiters";
import { definePart, type CacheSlot, type Runtime } from "@/lib/runtime";

// Most addresses and accounts remembered as blocked at once (an address rotation cannot grow a map without bound).
const MAX_SIGN_IN_BLOCKS = 10_000;

// The console's state.
export interface ConsoleState {
  /** Client addresses ("addr:…") and accounts ("acct:…") over the failed sign-in limit, and until when (ms). */
  signInBlocks: BoundedMap<string, number>;
  /** Client addresses that failed a sign-in, and until when (a locked account refuses only them). */
  signInFailedAddresses: BoundedMap<string, number>;
  /** The paths a changelog entry may name (lib/console/changelog-editor.ts), for the base URL they were read for. */
  changelogEndpoints: CacheSlot<{ baseUrl: string; paths: string[] }>;
}

// The console's part, read with `rt.part(consoleState)`.
export const consoleState = definePart("console", (): ConsoleState => ({
  signInBlocks: new BoundedMap(MAX_SIGN_IN_BLOCKS),
  signInFailedAddresses: new BoundedMap(MAX_SIGN_IN_BLOCKS),
  changelogEndpoints: {},
}));

// What counts failed sign-ins and wrong passwords or codes: the console's blocks, the limiters they count on
// (SIGN_IN_FAILURE_LIMIT per window) and the window itself.
export interface SignInAttempts {
  state: ConsoleState;
  limiters: Pick<RateLimiters, "signInFailureByAddress" | "signInFailureByAccount">;
  windowSeconds: number;
}

// A runtime's sign-in attempts: its console state, its limiters and SIGN_IN_FAILURE_WINDOW_SECONDS.
export function signInAttempts(rt: Runtime): SignInAttempts {
  return {
    state: rt.part(consoleState),
    limiters: rt.limiters,
    windowSeconds: rt.config.SIGN_IN_FAILURE_WINDOW_SECONDS,
  };
}
