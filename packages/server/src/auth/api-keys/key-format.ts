import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { KEY_PREFIX } from '@cairn/contract';

export { KEY_PREFIX };

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 30 base62 characters carry 178 bits, above the 160 the contract asks for. */
const RANDOM_LENGTH = 30;
/** CRC32 fits in six base62 digits (62^6 > 2^32). */
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

/** Total length of a well-formed key. */
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

/** Mints a new key: prefix, 30 random base62 characters, then a CRC32 checksum of everything before it. */
export function generateApiKey(): string {
  const body = KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksumOf(body);
}

/** True when the key has the right shape and its checksum matches; no database needed. */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length !== KEY_LENGTH || !KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return checksumOf(body) === key.slice(-CHECKSUM_LENGTH);
}

/** The only form in which a key is stored or looked up. Keys carry 178 random bits, so a fast hash is enough. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What may be shown of a key after creation: its start and its last four characters. */
export function displayParts(key: string): { start: string; last4: string } {
  return { start: key.slice(0, KEY_PREFIX.length + 4), last4: key.slice(-4) };
}

function checksumOf(body: string): string {
  return toBase62(crc32(body)).padStart(CHECKSUM_LENGTH, '0');
}

function toBase62(n: number): string {
  let out = '';
  do {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting the bytes above keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}
