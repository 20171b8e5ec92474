import { redact } from '@cairn/contract/redaction';
import type { EmbeddingsConfig } from '../config/load-config.js';
import { CAPTURED_KIND } from '../search/index.js';
import type { TextToEmbed } from '../store/types.js';

/** Longer texts are cut: embedding models read a few thousand tokens at most. */
const MAX_CHARS = 8_000;

/** The provider did not give usable vectors; the message never holds the API key. */
export class EmbeddingsError extends Error {
  override name = 'EmbeddingsError';
}

/** A client of an OpenAI-compatible `POST <url>/embeddings` (OpenAI, Ollama, llama.cpp, vLLM…). */
export class EmbeddingsProvider {
  constructor(private readonly config: EmbeddingsConfig) {}

  get model(): string {
    return this.config.model;
  }

  /** Unit-length vectors, one per text, in order. */
  async embed(texts: string[], timeoutMs: number): Promise<Float32Array[]> {
    let response: Response;
    try {
      response = await fetch(`${this.config.url}/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.config.apiKey && { authorization: `Bearer ${this.config.apiKey}` }),
        },
        body: JSON.stringify({ model: this.config.model, input: texts.map((t) => t.slice(0, MAX_CHARS) || ' ') }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new EmbeddingsError(`could not reach ${this.config.url}/embeddings: ${(error as Error).message}`);
    }
    const body = await response.text().catch(() => '');
    if (!response.ok)
      throw new EmbeddingsError(`${this.config.url}/embeddings answered ${response.status}: ${this.tame(body)}`);
    return this.vectors(body, texts.length);
  }

  private vectors(body: string, count: number): Float32Array[] {
    let data: unknown;
    try {
      data = (JSON.parse(body) as { data?: unknown }).data;
    } catch {
      throw new EmbeddingsError(`${this.config.url}/embeddings did not answer JSON: ${this.tame(body)}`);
    }
    if (!Array.isArray(data) || data.length !== count)
      throw new EmbeddingsError(
        `expected ${count} embeddings in "data", got ${Array.isArray(data) ? data.length : 'none'}`,
      );
    const ordered = [...data].sort((a, b) => Number(a?.index ?? 0) - Number(b?.index ?? 0));
    const dims = (ordered[0] as { embedding?: unknown[] })?.embedding?.length ?? 0;
    return ordered.map((item: { embedding?: unknown }) => {
      const e = item?.embedding;
      if (
        !Array.isArray(e) ||
        e.length === 0 ||
        e.length !== dims ||
        !e.every((x) => typeof x === 'number' && Number.isFinite(x))
      ) {
        throw new EmbeddingsError('an embedding is not a list of numbers of the same length as the others');
      }
      return unit(Float32Array.from(e as number[]));
    });
  }

  /** A short, key-free excerpt of what the provider said. */
  private tame(text: string): string {
    const excerpt = text.slice(0, 200).replace(/\s+/g, ' ');
    const withoutKey = this.config.apiKey ? excerpt.replaceAll(this.config.apiKey, '[key]') : excerpt;
    return redact(withoutKey).text;
  }
}

/** What an entry's vector is made from: a captured turn's text; otherwise title, tags and text. */
export function textToEmbed(entry: TextToEmbed): string {
  return entry.kind === CAPTURED_KIND ? entry.content : `${entry.title}\n${entry.tags.join(', ')}\n${entry.content}`;
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}
