// What every console page starts with, written once: the signed-in user (or the sign-in page, coming back here), the
// console's services, the session's CSRF token, and the mapping of a read's refusals to pages (not found; an
// organization that requires two-factor sign-in sends the user to set it up). The pages are the console's
// composition root: the runtime is read here and its parts passed down.
import "server-only";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { ConsoleError } from "@/lib/console/console-errors";
import { consoleServices, csrfTokenFor, type ConsoleServices } from "@/lib/console/http";
import { getConsoleUser, type ConsoleUser } from "@/lib/console/session";
import { getRuntime } from "@/lib/runtime";

// A console page's request, signed in: the console's services, the user, the request's headers and the CSRF token of
// the user's session (the page's forms send it back).
export interface PageSession extends ConsoleServices {
  user: ConsoleUser;
  requestHeaders: Headers;
  csrfToken: string;
}

// The signed-in user's page session; `orNull`: null when no one is signed in or the session cannot be read (a frame
// or a page shown to anyone), else the error.
async function readSession(orNull: boolean): Promise<PageSession | null> {
  const rt = getRuntime();
  const requestHeaders = await headers();
  const read = getConsoleUser(requestHeaders, rt.config, () => rt.db());
  const user = await (orNull ? read.catch(() => null) : read);
  if (!user) return null;
  return {
    ...(await consoleServices(rt)),
    user,
    requestHeaders,
    csrfToken: csrfTokenFor(rt.config, user.id, requestHeaders),
  };
}

// The page session when someone is signed in, else null (a session that cannot be read counts as none).
export function optionalPageSession(): Promise<PageSession | null> {
  return readSession(true);
}

// The page session of the signed-in user; without one, the sign-in page, coming back to `path` (none: the sign-in
// page's own default).
export async function pageSession(path?: string): Promise<PageSession> {
  const session = await readSession(false);
  if (!session)
    redirect(
      path === undefined ? "/console/sign-in" : `/console/sign-in?callbackUrl=${encodeURIComponent(path)}`,
    );
  return session;
}

// A page's read: a 404 is the not-found page; an organization (`slug`) that requires two-factor sign-in which this
// session does not meet sends the user to set it up (also on a client-side navigation, which does not run the
// organization layout's redirect again). Any other error is the caller's.
export async function pageRead<T>(read: Promise<T>, slug?: string): Promise<T> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof ConsoleError && err.status === 404) notFound();
    if (slug !== undefined && err instanceof ConsoleError && err.code === "CONSOLE_TWO_FACTOR_REQUIRED")
      redirect(`/console/account?required=${encodeURIComponent(slug)}`);
    throw err;
  }
}
