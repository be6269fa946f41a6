// One changelog entry (product team only): GET answers it with its history; POST or PUT edits it (any fields).
import { consoleRoute } from "@/lib/console/http";
import { editEntry, getEditorEntry } from "@/lib/console/changelog-editor";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ id: string }>(({ rt, user, params }) =>
  getEditorEntry(rt, user, params.id),
);
export const POST = consoleRoute<{ id: string }>(({ rt, user, params, body }) =>
  editEntry(rt, user, params.id, body),
);
export const PUT = POST;
