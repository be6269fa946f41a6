// Auth.js (the console's sign-in, sign-out, session, CSRF and OIDC callback) on /api/auth/*.
import { handleAuth } from "@/lib/console/route";

export const dynamic = "force-dynamic";
export const GET = handleAuth;
export const POST = handleAuth;
