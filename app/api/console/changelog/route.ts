// The changelog editor (product team only): GET lists every entry, drafts included; POST creates a draft.
import { consoleRoute } from "@/lib/console/http";
import { changelogEndpointPaths, createEntry, listEditorEntries } from "@/lib/console/changelog-editor";

export const dynamic = "force-dynamic";
export const GET = consoleRoute(({ db, user }) => listEditorEntries(db, user));
export const POST = consoleRoute(
  ({ db, config, state, user, body }) => createEntry(db, changelogEndpointPaths(config, state), user, body),
  { status: 201 },
);
