// How the production server's process (scripts/serve.mjs) is started: node's own flags first. Half-spaces of 64 MB
// for V8's young generation (the default is 16 MB): with the products of a big organization in memory
// (lib/catalog/memory: hundreds of MB of small strings in the old generation), the default's frequent scavenges
// promote enough to force full collections, which cost the hot page 1 two fifths of its throughput and its p99.
// Measured: bench/README.md#products-in-memory
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=64"] as const;
