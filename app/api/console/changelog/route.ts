// The changelog editor (product team only): GET lists every entry, drafts included; POST creates a draft.
import { consoleRoute } from "@/lib/console/http";
import { createEntry, listEditorEntries } from "@/lib/console/changelog-editor";

export const dynamic = "force-dynamic";
export const GET = consoleRoute(({ rt, user }) => listEditorEntries(rt, user));
export const POST = consoleRoute(({ rt, user, body }) => createEntry(rt, user, body), { status: 201 });
