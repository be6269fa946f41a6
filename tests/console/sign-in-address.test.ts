// Issue 21, row 17, in-process: the console answers on the address the browser used. Auth.js' redirects follow the
// Origin of the form when it names the request's Host (so the CSP's form-action 'self' lets them through), fall back
// to PUBLIC_BASE_URL otherwise; the console's Origin check accepts that same origin. The browser test is
// tests/e2e/sign-in-address.spec.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/db/users";
import { consoleOrigin } from "@/lib/console/http";
import { setupApi, type ApiFixture } from "../support/api";
import { consoleUserOf, signIn } from "../support/console";

const PASSWORD = "correct horse battery";
const BASE = { baseUrl: "http://api.test" };

describe("the console's origin", () => {
  it("is the request's Origin when it names the Host the request was sent to, else the base URL's", () => {
    const of = (h: Record<string, string>) => consoleOrigin(BASE, new Headers(h));
    expect(of({ origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000" })).toBe("http://127.0.0.1:3000");
    expect(of({ origin: "https://Console.LAN", host: "console.lan" })).toBe("https://console.lan");
    // A proxy that rewrites the Host, a foreign page, no Origin, no Host, not a URL: the base URL's.
    expect(of({ origin: "https://public.example", host: "localhost:3000" })).toBe("http://api.test");
    expect(of({ origin: "https://evil.example", host: "api.test" })).toBe("http://api.test");
    expect(of({ host: "127.0.0.1:3000" })).toBe("http://api.test");
    expect(of({ origin: "http://127.0.0.1:3000" })).toBe("http://api.test");
    expect(of({ origin: "null", host: "127.0.0.1:3000" })).toBe("http://api.test");
    expect(of({ origin: "file://127.0.0.1:3000", host: "127.0.0.1:3000" })).toBe("http://api.test");
  });
});

describe("sign-in at another address than PUBLIC_BASE_URL's", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite", { AUTH_SECRET: "s".repeat(40) });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("redirects back to the address the form was sent from, success and refusal alike", async () => {
    const user = await createUser(fx.db, { email: "addr@console.test", name: "Addr", password: PASSWORD });
    const headers = {
      host: "127.0.0.1:3000",
      origin: "http://127.0.0.1:3000",
      "x-forwarded-for": "10.7.0.1",
    };
    const wrong = await signIn(user.email, "wrong password!", { headers });
    expect(wrong.response.headers.get("location")).toBe(
      "http://127.0.0.1:3000/console/sign-in?error=CredentialsSignin&code=credentials",
    );
    const ok = await signIn(user.email, PASSWORD, { headers });
    expect(ok.response.headers.get("location")).toBe("http://127.0.0.1:3000/console");
    expect((await consoleUserOf(new Headers({ cookie: ok.cookie })))?.id).toBe(user.id);
    // Through a proxy that rewrites the Host: the configured address, as before.
    const proxied = await signIn(user.email, PASSWORD, {
      headers: { host: "localhost:3000", origin: "https://public.example", "x-forwarded-for": "10.7.0.2" },
    });
    expect(proxied.response.headers.get("location")).toBe("http://api.test/console");
  });
});
