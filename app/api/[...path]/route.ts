import { ConsoleError } from "@/lib/console/console-errors";
import { errorResponse } from "@/lib/console/http";

export const dynamic = "force-dynamic";

// Any path under /api/ that no route handles: the console's JSON 404. Without it Next.js answered with its HTML
// not-found page, which the proxy never sees under /api/ (proxy.ts), so a page with no nonce CSP.
function notFound(): Response {
  return errorResponse(new ConsoleError("CONSOLE_NOT_FOUND"));
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
export { notFound as OPTIONS };
