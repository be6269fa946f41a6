// The console's routes that tests/instances/console-sessions.test.ts calls, hosted by an instance process
// (instance-process.ts) as Next.js would host them: each node request made a web Request and handed to the very
// route handler of app/ (Auth.js' /api/auth/*, the account, signing out one session, "sign out everywhere"); any
// other path is a 404.
import type { IncomingMessage, ServerResponse } from "node:http";
import * as authRoute from "@/app/api/auth/[...auth]/route";
import * as accountRoute from "@/app/api/console/account/route";
import * as signOutOneRoute from "@/app/api/console/account/sessions/[id]/sign-out/route";
import * as signOutEverywhereRoute from "@/app/api/console/sign-out-everywhere/route";

type Route = (request: Request, params: Record<string, string>) => Promise<Response>;

const ROUTES: Array<[string, RegExp, Route]> = [
  ["GET", /^\/api\/auth\//, (r) => authRoute.GET(r)],
  ["POST", /^\/api\/auth\//, (r) => authRoute.POST(r)],
  ["GET", /^\/api\/console\/account$/, (r) => accountRoute.GET(r, { params: Promise.resolve({}) })],
  [
    "POST",
    /^\/api\/console\/account\/sessions\/(?<id>[^/]+)\/sign-out$/,
    (r, p) => signOutOneRoute.POST(r, { params: Promise.resolve({ id: p.id! }) }),
  ],
  [
    "POST",
    /^\/api\/console\/sign-out-everywhere$/,
    (r) => signOutEverywhereRoute.POST(r, { params: Promise.resolve({}) }),
  ],
];

// Answers one request with the matching route handler, or 404.
export async function consoleRoutes(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://instance.test");
  const found = ROUTES.map(([method, re, route]) => ({ method, m: re.exec(url.pathname), route })).find(
    (r) => r.method === req.method && r.m,
  );
  if (!found) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  const request = new Request(`http://${req.headers.host ?? "instance.test"}${url.pathname}${url.search}`, {
    method: req.method,
    headers,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  });
  const response = await found.route(request, found.m!.groups ?? {});
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies;
  res.writeHead(response.status, out);
  res.end(Buffer.from(await response.arrayBuffer()));
}
