import { readSync } from 'node:fs';

/** Reads exactly `into`'s bytes of an open search data file from `position`; a file shorter than its header says is refused. */
export function readAt(fd: number, into: NodeJS.TypedArray, position: number, file: URL): void {
  if (readSync(fd, into, 0, into.byteLength, position) !== into.byteLength)
    throw new Error(`${file.pathname} is shorter than it says`);
}
