// Stand-in for the "server-only" marker package inside Vitest (which runs outside the react-server condition).
export {};
