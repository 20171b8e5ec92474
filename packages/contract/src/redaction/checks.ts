/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannonEntropy(text: string): number {
  if (!text) return 0;
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

/** The Luhn checksum every payment card number carries. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes and lengths of the card networks people paste (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
const CARD_NETWORKS: { prefix: RegExp; lengths: number[] }[] = [
  { prefix: /^4/, lengths: [13, 16, 19] },
  { prefix: /^(?:5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/, lengths: [16] },
  { prefix: /^3[47]/, lengths: [15] },
  { prefix: /^(?:6011|65|64[4-9])/, lengths: [16, 19] },
  { prefix: /^35(?:2[89]|[3-8])/, lengths: [16, 17, 18, 19] },
  { prefix: /^3(?:0[0-5]|[689])/, lengths: [14, 16, 19] },
  { prefix: /^62/, lengths: [16, 17, 18, 19] },
  { prefix: /^(?:5018|5020|5038|6304|6759|676[1-3])/, lengths: [12, 13, 14, 15, 16, 17, 18, 19] },
];

/** A plausible card number: a known network's prefix and length, and a valid Luhn checksum. */
export function isCardNumber(candidate: string): boolean {
  const digits = candidate.replace(/[ -]/g, '');
  if (/^(\d)\1+$/.test(digits)) return false;
  return CARD_NETWORKS.some((n) => n.prefix.test(digits) && n.lengths.includes(digits.length)) && passesLuhn(digits);
}

/**
 * A 40-character string shaped like an AWS secret access key: base64 alphabet with upper case,
 * lower case and digits mixed, random-looking. Hex (git SHAs) and word-like paths are not.
 */
export function looksLikeAwsSecret(candidate: string): boolean {
  if (!/[A-Z]/.test(candidate) || !/[a-z]/.test(candidate) || !/[0-9]/.test(candidate)) return false;
  if (/^[0-9a-fA-F]+$/.test(candidate)) return false;
  if ((candidate.match(/\//g)?.length ?? 0) > 3 || candidate.includes('//')) return false;
  // CamelCase identifiers and paths are runs of words; random keys have few long lower-case runs.
  if (/[a-z]{9,}/.test(candidate) || (candidate.match(/[a-z]{4,}/g)?.length ?? 0) >= 3) return false;
  return shannonEntropy(candidate) >= 4.3;
}

/** Basic credentials: base64 of `user:password`. */
export function isBasicCredential(candidate: string): boolean {
  if (candidate.length % 4 === 1) return false;
  const decoded = Buffer.from(candidate, 'base64').toString('latin1');
  return /^[\x20-\x7e]+:[\x20-\x7e]*$/.test(decoded);
}
