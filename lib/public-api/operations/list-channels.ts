// GET /public/v1/channels (preview `details`): the organization's channels, the ids `channelId` takes. Readable with
// any read scope: a channel is how every resource's values are read, not a resource of its own, and a key made
// before the preview (five read scopes, or one) reads them without a new scope.
import { channelsQuery, listChannels } from "@/lib/catalog/resources/channels";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { CHANNEL_EXAMPLE } from "../openapi/examples";
import { DETAILS_NOTE } from "./item";
import { listOperation } from "./list";

export const listChannelsOperation = listOperation({
  name: "channels",
  path: "/public/v1/channels",
  scope: READ_SCOPES,
  summary: "List channels",
  description:
    "Returns the channels of the key's organization: the ids `channelId` takes. Readable with any read scope.",
  query: channelsQuery,
  tag: { name: "Channels", description: "Channels: how scopable values differ (preview)." },
  item: "Channel",
  example: CHANNEL_EXAMPLE,
  preview: { feature: "details", note: DETAILS_NOTE },
  handler: ({ catalog, org, query }) => listChannels(catalog, org.id, query),
});
