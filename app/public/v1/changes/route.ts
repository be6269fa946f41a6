import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";
// An answer may wait up to 30 s for the next event (`wait`): a host that bounds a function's duration (Vercel) must
// let it run past that.
export const maxDuration = 60;

// /public/v1/changes: the change feed (preview feature `changes`: 404 while it is off).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route("/public/v1/changes");
