/**
 * Read-your-writes with read replicas (docs/operations.md "Read replicas"). On PostgreSQL a
 * write's answer carries its commit position in `X-Memlane-Position`; the client keeps the
 * latest of its own and sends it back as `X-Memlane-Read-After`, so a read served by a replica
 * waits until the replica has replayed that far (or is served by the primary). The server looks
 * at the header on reads only, so it goes out on every call.
 */

export const POSITION_HEADER = "x-memlane-position";
export const READ_AFTER_HEADER = "X-Memlane-Read-After";

const POSITION = /^lsn:([0-9A-Fa-f]{16})$/;

/** A position's order: `lsn:` and 16 hex digits; anything else sorts before every position. */
function order(position: string): bigint {
  const match = POSITION.exec(position);
  return match ? BigInt(`0x${match[1]}`) : -1n;
}

/** The latest position of this client's own writes. Concurrent calls may note positions in
 * any order: the highest is kept, so a later read is never less strict than an earlier one. */
export class WritePositions {
  private latest: string | undefined;

  constructor(readonly enabled: boolean = true) {}

  note(headers: Headers): void {
    if (!this.enabled) return;
    const position = headers.get(POSITION_HEADER);
    if (!position) return;
    if (this.latest === undefined || order(position) > order(this.latest)) this.latest = position;
  }

  headers(): Record<string, string> {
    return this.enabled && this.latest !== undefined ? { [READ_AFTER_HEADER]: this.latest } : {};
  }
}
