/**
 * The length to give a scratch array that rankings keep between calls for `n` items: with room
 * to grow, since a pool gains an item with each save, and an exact fit was allocated anew after
 * every save.
 */
export function scratchLength(n: number): number {
  return Math.ceil(n * 1.25);
}
