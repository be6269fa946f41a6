// The console's sign-in (@auth/core): JWT sessions, email + password against the users table, and an OpenID Connect
// provider when AUTH_OIDC_* are set. No self-registration: every way in maps to an existing account.
import type { AuthConfig } from "@auth/core";
import { CredentialsSignin } from "@auth/core/errors";
import Credentials from "@auth/core/providers/credentials";
import type { Provider } from "@auth/core/providers";
import type { JWT } from "@auth/core/jwt";
import type { Database, Queryable } from "@/db/client";
import {
  accountOfSession,
  endConsoleSession,
  startConsoleSession,
  touchConsoleSession,
} from "@/db/console-sessions";
import { findUserByEmail, verifyUserCredentials, type User } from "@/db/users";
import { authSecret } from "@/lib/console/auth-secret";
import { auditRecoveryCodeUsed, verifySecondFactor } from "@/lib/console/two-factor-verify";
import { clientAddress } from "@/lib/public-api/client-address";
import { RateLimiterUnavailableError, type RateLimitResult } from "@/lib/rate-limit/types";
import type { SignInAttempts } from "./state";
import type { Config } from "@/lib/config";

// Where Auth.js is mounted (app/api/auth/[...auth]/route.ts).
export const AUTH_BASE_PATH = "/api/auth";

// The console's sign-in page (also where Auth.js sends errors, as ?error=…&code=…).
export const SIGN_IN_PAGE = "/console/sign-in";

// How long a console session lasts (renewed while used).
export const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

// A sign-in refused because the client address, or the account from an address that failed too, is over
// SIGN_IN_FAILURE_LIMIT (?code=rate_limited).
export class SignInRateLimited extends CredentialsSignin {
  code = "rate_limited";
}

// A sign-in refused because the limiter's back end is unreachable and the policy refuses (?code=unavailable).
export class SignInUnavailable extends CredentialsSignin {
  code = "unavailable";
}

// One generic refusal for an unknown email and a wrong password alike (?code=credentials).
class InvalidCredentials extends CredentialsSignin {
  code = "credentials";
}

// The second step of an account with two-factor sign-in: the form asks for a code (?code=two_factor). Answered after
// any password of such an account, right or wrong, so that it tells nothing of the password.
export class TwoFactorRequired extends CredentialsSignin {
  code = "two_factor";
}

// The second step refused: the password or the code was wrong, not told which (?code=two_factor_failed).
export class TwoFactorFailed extends CredentialsSignin {
  code = "two_factor_failed";
}

// The database of the console's sessions, opened when a step needs it (a CSRF token or a request without a session
// cookie answers without it).
export type OpenDatabase = () => Promise<Database>;

// What sign-in reads: the configuration, the database and the counters of failed attempts.
export interface SignInDeps {
  config: Config;
  db: OpenDatabase;
  attempts: SignInAttempts;
}

// The Auth.js configuration for one request (built per request, cheap): what sign-in reads, and the request's
// headers (a new session records its address and browser).
export function authConfig(deps: SignInDeps, requestHeaders: Headers): AuthConfig {
  const { config, attempts } = deps;
  const secure = config.baseUrl.startsWith("https://");
  const providers: Provider[] = [
    Credentials({
      id: "credentials",
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
        code: { label: "Code", type: "text" },
      },
      authorize: async (credentials, request) => {
        const email = typeof credentials.email === "string" ? credentials.email.trim().toLowerCase() : "";
        const password = typeof credentials.password === "string" ? credentials.password : "";
        const code = typeof credentials.code === "string" ? credentials.code.trim() : "";
        const address = clientAddress(request.headers);
        if (signInRefused(attempts.state, address, email)) throw new SignInRateLimited();
        const db = await deps.db();
        // Unknown email and wrong password cost one scrypt each (a dummy hash for an unknown email) and answer alike.
        const user = email && password ? await verifyUserCredentials(db, email, password) : null;
        // An account with two-factor sign-in: the code is asked for after any password (a wrong one is counted as a
        // failure, silently), and a wrong password or code is refused alike. Who has the password but not the
        // second factor, or neither, learns nothing of the password here. (What it tells: that this email has
        // two-factor sign-in on.)
        if (email && (await hasTwoFactorByEmail(db, email))) {
          if (!user) await countFailure(attempts, address, email);
          if (!code) throw new TwoFactorRequired();
          if (!user) throw new TwoFactorFailed();
          const factor = await verifySecondFactor(db, config, user.id, code);
          if (!factor) {
            await countFailure(attempts, address, email);
            throw new TwoFactorFailed();
          }
          if (factor === "recovery") await auditRecoveryCodeUsed(db, user);
        }
        if (user) return { id: user.id, email: user.email, name: user.name };
        await countFailure(attempts, address, email);
        throw new InvalidCredentials();
      },
    }),
  ];
  if (config.AUTH_OIDC_ISSUER && config.AUTH_OIDC_CLIENT_ID && config.AUTH_OIDC_CLIENT_SECRET) {
    providers.push({
      id: "oidc",
      name: "SSO",
      type: "oidc",
      issuer: config.AUTH_OIDC_ISSUER,
      clientId: config.AUTH_OIDC_CLIENT_ID,
      clientSecret: config.AUTH_OIDC_CLIENT_SECRET,
      checks: ["pkce", "state", "nonce"],
    });
  }
  return {
    basePath: AUTH_BASE_PATH,
    trustHost: true,
    secret: authSecret(config),
    useSecureCookies: secure,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: SIGN_IN_PAGE, error: SIGN_IN_PAGE },
    providers,
    logger: {
      // Expected refusals (wrong password, unknown or unverified SSO email, a tampered cookie) are not server errors.
      error: (error) => {
        const type = (error as { type?: string }).type;
        if (type === "CredentialsSignin" || type === "AccessDenied" || type === "JWTSessionError") return;
        console.error(`[auth] ${type ?? error.name}: ${error.message}`);
      },
      warn: () => {},
      debug: () => {},
    },
    events: {
      // Sign-out ends this session only (a copy of its cookie too); the account's other sessions go on.
      signOut: async (message) => {
        const token = "token" in message ? message.token : null;
        if (token?.sub && typeof token.sid === "string")
          await endConsoleSession(await deps.db(), token.sub, token.sid);
      },
    },
    callbacks: {
      // OIDC: only the provider's verified email of an existing account signs in; the session then carries our id.
      signIn: async ({ user, account, profile }) => {
        if (account?.provider !== "oidc") return true;
        const email = typeof profile?.email === "string" ? profile.email.trim().toLowerCase() : "";
        const verified = profile?.email_verified === true;
        if (!email || !verified) return false;
        const ours = await findUserByEmail(await deps.db(), email);
        if (!ours) return false;
        // Without an adapter, Auth.js builds the token from this very object: our id, not the provider's subject.
        user.id = ours.id;
        user.email = ours.email;
        user.name = ours.name;
        return true;
      },
      // At sign-in a session row is started and the token carries its id (`sid`); every later read (GET
      // /api/auth/session, which also renews the cookie) needs that session to be live, and renews the row too;
      // else the session is null and its cookie cleared: an ended session's token is never renewed.
      jwt: async ({ token, user, account }) => {
        if (user?.id) {
          token.sub = user.id;
          token.email = user.email;
          token.name = user.name;
          token.sid = await startConsoleSession(await deps.db(), {
            userId: user.id,
            ipAddress: clientAddress(requestHeaders),
            userAgent: requestHeaders.get("user-agent") ?? "",
            maxAgeSeconds: SESSION_MAX_AGE_SECONDS,
          });
          // A session through the provider: an organization requiring two-factor trusts the provider's own MFA.
          if (account?.provider === "oidc") token.sso = true;
          delete token.picture;
          return token;
        }
        const live = await accountOfToken(deps.db, token, requestHeaders, { renew: true });
        return live ? token : null;
      },
      session: ({ session, token }) => {
        if (token.sub) session.user = { ...session.user, id: token.sub };
        return session;
      },
    },
  };
}

// The account of a session token, read fresh from the database with its session in one statement: null unless the
// token's session (`sid`) is a live session of that account (sign-out, "sign out everywhere", a password change or
// reset, a weaker role end sessions). The session's use is recorded at most once a minute (LAST_SEEN_EVERY_SECONDS)
// with the request's address; `renew` (the token is renewed) records it every time and extends the session.
export async function accountOfToken(
  open: OpenDatabase,
  token: JWT | null,
  requestHeaders: Headers,
  opts: { renew?: boolean } = {},
): Promise<User | null> {
  if (!token?.sub || typeof token.sid !== "string") return null;
  const db = await open();
  const found = await accountOfSession(db, token.sid, token.sub);
  if (!found) return null;
  const { stale, ...user } = found;
  if (stale || opts.renew)
    await touchConsoleSession(db, token.sid, {
      ipAddress: clientAddress(requestHeaders),
      renewSeconds: opts.renew ? SESSION_MAX_AGE_SECONDS : undefined,
    });
  return user;
}

// True when a sign-in is refused before any password check: the address is over the failed sign-in limit, or the
// account is and this address failed a sign-in too. An address without failures still reaches the password check
// of a locked account, so a stranger failing on purpose cannot keep the owner out; each wrong password it tries
// counts on it (and locks it out of that account).
function signInRefused(
  state: SignInAttempts["state"],
  address: string,
  email: string,
  now = Date.now(),
): boolean {
  if (blocked(state.signInBlocks, `addr:${address}`, now)) return true;
  return (
    blocked(state.signInBlocks, `acct:${email}`, now) && blocked(state.signInFailedAddresses, address, now)
  );
}

// True while the key has a live entry in the map (an entry is the millisecond it ends).
function blocked(map: Map<string, number>, key: string, now: number): boolean {
  const until = map.get(key);
  if (until === undefined) return false;
  if (until > now) return true;
  map.delete(key);
  return false;
}

// Counts one failed sign-in on the address and on the account, and remembers the address as one that failed for a
// window; a key whose window is now full is refused until it frees (an account: from addresses that failed).
async function countFailure(
  attempts: SignInAttempts,
  address: string,
  email: string,
  now = Date.now(),
): Promise<void> {
  const keys = [`addr:${address}`, `acct:${email}`];
  const limiters = [attempts.limiters.signInFailureByAddress, attempts.limiters.signInFailureByAccount];
  const windowMs = attempts.windowSeconds * 1000;
  attempts.state.signInFailedAddresses.set(address, now + windowMs);
  let results: RateLimitResult[];
  try {
    results = await Promise.all(limiters.map((l, i) => l.limit(keys[i]!)));
  } catch (err) {
    if (err instanceof RateLimiterUnavailableError) throw new SignInUnavailable();
    throw err;
  }
  results.forEach((r, i) => {
    if (!r.success || r.remaining === 0) {
      attempts.state.signInBlocks.set(keys[i]!, r.reset > now ? r.reset : now + windowMs);
    }
  });
}

// True when the account with this email has two-factor sign-in on.
async function hasTwoFactorByEmail(db: Queryable, email: string): Promise<boolean> {
  const rows = await db.query(
    `select 1 from users u join user_two_factor t on t.user_id = u.id
      where u.email = $1 and t.enabled_at is not null`,
    [email],
  );
  return rows.length > 0;
}
