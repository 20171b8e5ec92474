// Reads a repository's .zip in the browser for the rules import. The archive is hostile until shown
// otherwise: its central directory is read first (names, declared sizes, flags) and only candidate
// rule files of at most 256 KiB are inflated, into buffers of their declared size.
import { type UnzipFileInfo, unzipSync } from 'fflate';
import { type Listed, MAX_FILE_BYTES, type RuleFiles, readChosen, ruleFilesFrom } from './rule-files.js';

/** The largest zip read at all (its bytes are held in memory). */
export const MAX_ZIP_BYTES = 256 * 1024 * 1024;
/** The most the entries of a zip may declare, uncompressed, together. */
export const MAX_UNCOMPRESSED_BYTES = 64 * 1024 * 1024;
/** Deflate cannot expand past about 1032:1; an entry declaring more is lying (a bomb or damage). */
const MAX_RATIO = 1100;
const MiB = 1024 * 1024;

/** A .zip the person chose (a browser File, or anything with its size and bytes). */
export interface ZipFile {
  name: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

interface Entry extends Listed {
  index: number;
  compression: number;
  encrypted: boolean;
  crc: number;
}

/** The rule files of a zip; throws an Error whose message says what is wrong and what to do instead. */
export async function ruleFilesOfZip(file: ZipFile): Promise<RuleFiles> {
  if (file.size > MAX_ZIP_BYTES)
    throw new Error(
      `This zip is ${mib(file.size)} MiB, more than the 256 MiB the import reads: ${file.name}. ` +
        'Choose the repository’s folder instead.',
    );
  return ruleFilesOfZipBytes(file.name, new Uint8Array(await file.arrayBuffer()));
}

/** The rule files of a zip's bytes (see ruleFilesOfZip). */
export async function ruleFilesOfZipBytes(name: string, bytes: Uint8Array): Promise<RuleFiles> {
  const entries = listEntries(name, bytes);
  const declared = entries.reduce((sum, e) => sum + e.size, 0);
  if (declared > MAX_UNCOMPRESSED_BYTES)
    throw new Error(
      `This zip would unpack to ${mib(declared)} MiB, more than the 64 MiB the import reads: ${name}. ` +
        'Choose the repository’s folder instead, or a zip of only its rule files.',
    );
  const choice = ruleFilesFrom(entries, name.replace(/\.zip$/i, ''));
  const readable = choice.chosen.filter(({ item, path }) => {
    const reason = item.encrypted
      ? 'encrypted (password-protected)'
      : item.compression !== 0 && item.compression !== 8
        ? `compressed with method ${item.compression}, which the import does not read (only stored and deflate)`
        : undefined;
    if (reason) choice.notRead.push({ path, reason });
    return !reason;
  });
  const wanted = new Set(readable.map(({ item }) => item.index));
  let index = 0;
  const inflated = unzip(name, bytes, (info) => wanted.has(index++) && info.originalSize <= MAX_FILE_BYTES);
  // fflate inflates into a buffer of the declared size and checks no checksum: a lying entry comes out cut short.
  const intact = readable.filter(({ item, path }) => {
    const data = inflated[item.path];
    const whole = data !== undefined && data.length === item.size && crc32(data) === item.crc;
    if (!whole) choice.notRead.push({ path, reason: 'damaged: its content does not match its checksum' });
    return whole;
  });
  return readChosen({ ...choice, chosen: intact }, (item) => inflated[item.path] ?? new Uint8Array());
}

/** Every entry of the central directory, nothing inflated; refuses a zip whose sizes cannot be true. */
function listEntries(name: string, bytes: Uint8Array): Entry[] {
  const infos: UnzipFileInfo[] = [];
  unzip(name, bytes, (info) => {
    infos.push(info);
    return false;
  });
  const headers = centralHeaders(bytes);
  if (headers?.length !== infos.length) throw damaged(name);
  return infos.map((info, index) => {
    const lying = info.originalSize > MAX_RATIO * Math.max(info.size, 1) && info.compression === 8;
    if (lying || info.originalSize < 0 || info.size < 0 || info.size > bytes.length)
      throw new Error(
        `This zip declares sizes no real archive has (a zip bomb, or a damaged file): ${name}. ` +
          'Download the zip again from your repository, or choose its folder.',
      );
    const { flags, crc } = headers[index] ?? { flags: 0, crc: 0 };
    return {
      index,
      path: info.name,
      size: info.originalSize,
      compression: info.compression,
      encrypted: (flags & 1) === 1,
      crc,
    };
  });
}

/** fflate's unzipSync with its errors said for a person: not a zip, or a damaged one. */
function unzip(name: string, bytes: Uint8Array, filter: (info: UnzipFileInfo) => boolean) {
  if (bytes.length < 22) throw notAZip(name);
  try {
    return unzipSync(bytes, { filter });
  } catch (e) {
    throw (e as { code?: number }).code === 13 ? notAZip(name) : damaged(name);
  }
}

/**
 * The general-purpose flags (bit 0 is encryption) and CRC-32 of each central directory entry, in the order
 * fflate's filter sees them (fflate reports neither). Undefined when the directory does not parse.
 */
function centralHeaders(bytes: Uint8Array): { flags: number; crc: number }[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    let end = bytes.length - 22;
    while (view.getUint32(end, true) !== 0x06054b50) if (--end < 0 || bytes.length - end > 65558) return undefined;
    let count = view.getUint16(end + 8, true);
    let offset = view.getUint32(end + 16, true);
    if (end >= 20 && view.getUint32(end - 20, true) === 0x07064b50) {
      const zip64 = Number(view.getBigUint64(end - 12, true));
      if (view.getUint32(zip64, true) === 0x06064b50) {
        count = Number(view.getBigUint64(zip64 + 32, true));
        offset = Number(view.getBigUint64(zip64 + 48, true));
      }
    }
    const headers: { flags: number; crc: number }[] = [];
    for (let i = 0; i < count; i++) {
      if (view.getUint32(offset, true) !== 0x02014b50) return undefined;
      headers.push({ flags: view.getUint16(offset + 8, true), crc: view.getUint32(offset + 16, true) });
      offset +=
        46 + view.getUint16(offset + 28, true) + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
    }
    return headers;
  } catch {
    return undefined;
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
/** The zip's CRC-32 of `data`, as an unsigned number. */
function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const notAZip = (name: string) =>
  new Error(`This file is not a zip archive: ${name}. Choose a .zip downloaded from your repository, or a folder.`);
const damaged = (name: string) =>
  new Error(`This zip archive is damaged: ${name}. Download it again from your repository, or choose its folder.`);
const mib = (bytes: number) => Math.ceil(bytes / MiB);
