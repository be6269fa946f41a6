// The console's sign-in flow in-process, through the real route handler of /api/auth/* (no browser, no server).
import * as authRoute from "@/app/api/auth/[...auth]/route";
import { getConsoleUser, type ConsoleUser } from "@/lib/console/session";
import { getRuntime } from "@/lib/runtime";

// The signed-in user of a request's headers, on the process's runtime (what the console's routes and pages read).
export function consoleUserOf(headers: Headers): Promise<ConsoleUser | null> {
  const rt = getRuntime();
  return getConsoleUser(headers, rt.config, () => rt.db());
}

// A cookie jar: name → value, filled from Set-Cookie headers (an expired or emptied cookie is removed).
export type CookieJar = Map<string, string>;

// Updates a jar from a response's Set-Cookie headers.
export function storeCookies(jar: CookieJar, response: Response): CookieJar {
  for (const line of response.headers.getSetCookie()) {
    const [pair, ...attrs] = line.split(";");
    const eq = pair!.indexOf("=");
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v] = a.trim().split("=");
      return (
        (k?.toLowerCase() === "max-age" && Number(v) <= 0) ||
        (k?.toLowerCase() === "expires" && Date.parse(v ?? "") <= Date.now())
      );
    });
    if (expired || value === "") jar.delete(name);
    else jar.set(name, value);
  }
  return jar;
}

// A Cookie header from a jar, or from name/value pairs.
export function cookieHeader(jar: CookieJar | Record<string, string>): string {
  const entries = jar instanceof Map ? [...jar] : Object.entries(jar);
  return entries.map(([k, v]) => `${k}=${v}`).join("; ");
}

// The Set-Cookie line of the named cookie (or of the first cookie whose name contains it), or undefined.
export function setCookieLine(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((l) => l.split("=")[0]!.includes(name));
}

// Calls the /api/auth route handler in-process with a path under the runtime's base URL.
export async function authRequest(
  path: string,
  opts: {
    method?: "GET" | "POST";
    cookie?: string;
    form?: Record<string, string>;
    headers?: Record<string, string>;
  } = {},
): Promise<Response> {
  const url = new URL(path, getRuntime().config.baseUrl);
  const headers = new Headers(opts.headers);
  if (opts.cookie) headers.set("cookie", opts.cookie);
  let body: string | undefined;
  if (opts.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(opts.form).toString();
  }
  const method = opts.method ?? (opts.form ? "POST" : "GET");
  const request = new Request(url, { method, headers, body });
  return method === "POST" ? authRoute.POST(request) : authRoute.GET(request);
}

// GET /api/auth/csrf: the token and the jar holding its cookie.
export async function csrf(
  jar: CookieJar = new Map(),
  headers?: Record<string, string>,
): Promise<{ csrfToken: string; jar: CookieJar }> {
  const res = await authRequest("/api/auth/csrf", { cookie: cookieHeader(jar), headers });
  storeCookies(jar, res);
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  return { csrfToken, jar };
}

// The name of the session cookie for the runtime's base URL.
export function sessionCookieName(): string {
  return getRuntime().config.baseUrl.startsWith("https://")
    ? "__Secure-authjs.session-token"
    : "authjs.session-token";
}

// Signs in with email and password the way the sign-in form does: GET /api/auth/csrf, then POST
// /api/auth/callback/credentials with the token, the credentials and the CSRF cookie. `cookie` is the whole Cookie
// header after sign-in (session and CSRF cookies; no session cookie when refused); `response` is the callback's
// answer (302: Location is the callback URL on success, the sign-in page with ?error=… otherwise).
export async function signIn(
  email: string,
  password: string,
  opts: { headers?: Record<string, string>; callbackUrl?: string } = {},
): Promise<{ cookie: string; response: Response; jar: CookieJar }> {
  const { csrfToken, jar } = await csrf(new Map(), opts.headers);
  const response = await authRequest("/api/auth/callback/credentials", {
    cookie: cookieHeader(jar),
    headers: opts.headers,
    form: { csrfToken, email, password, callbackUrl: opts.callbackUrl ?? "/console" },
  });
  storeCookies(jar, response);
  return { cookie: cookieHeader(jar), response, jar };
}

// Signs out the way the sign-out button does (POST /api/auth/signout with the CSRF token); returns the answer and
// the jar after it.
export async function signOut(jar: CookieJar): Promise<{ response: Response; jar: CookieJar }> {
  const { csrfToken } = await csrf(jar);
  const response = await authRequest("/api/auth/signout", {
    cookie: cookieHeader(jar),
    form: { csrfToken, callbackUrl: "/console/sign-in" },
  });
  storeCookies(jar, response);
  return { response, jar };
}
