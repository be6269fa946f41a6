export const dynamic = "force-dynamic";

// GET /ping: a small JSON, the least work a route handler can do.
export async function GET() {
  return new Response(
    JSON.stringify({
      data: [],
      pagination: { page: 1, perPage: 20, total: 0, totalPages: 0, hasAny: false },
    }),
    {
      status: 200,
      headers: { "content-type": "application/json", "cache-control": "private, no-store" },
    },
  );
}
