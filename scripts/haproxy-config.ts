// `npm run haproxy:config`: prints an HAProxy configuration for HAProxy in front of npm start (scripts/lib/haproxy.ts).
import { parseArgs } from "node:util";
import { runCli, UsageError } from "./lib/cli";
import { haproxyConfig } from "./lib/haproxy";

const USAGE = `Usage: npm run haproxy:config -- [--bind <address:port>] [--server <address:port>] [--maxconn <n>]

Prints an HAProxy (2.2 or later) configuration that puts HAProxy in front of npm start: it accepts every connection
at once, keeps at most --maxconn kept-alive connections to the server, and answers a request that waited 500 ms for one
with the API's own 503 and Retry-After.

Options:
  --bind     where HAProxy listens (default 0.0.0.0:80)
  --server   where npm start listens (default 127.0.0.1:3000; start it with TRUST_PROXY=true)
  --maxconn  connections to the server at most (default 32)
  -h, --help Show this help.
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      bind: { type: "string", default: "0.0.0.0:80" },
      server: { type: "string", default: "127.0.0.1:3000" },
      maxconn: { type: "string", default: "32" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const maxconn = Number(values.maxconn);
  if (!Number.isInteger(maxconn) || maxconn < 1) throw new UsageError("--maxconn: a whole number, 1 or more");
  process.stdout.write(haproxyConfig({ bind: values.bind, server: values.server, maxconn }));
}

void runCli(main, {
  usage: (message) => `haproxy:config: ${message}\n\n${USAGE}`,
});
