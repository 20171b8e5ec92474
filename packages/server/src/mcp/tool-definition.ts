import type { CallToolResult, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Access } from '../domain/access.js';
import type { Caller } from '../domain/caller.js';
import type { DomainDeps } from '../domain/deps.js';
import { listedInputSchema, listedOutputSchema } from './listed-schema.js';

/** What a tool handler gets: the domain, the caller, and the caller's access (loaded once, on demand). */
export interface ToolContext {
  deps: DomainDeps;
  caller: Caller;
  access(): Promise<Access>;
}

/** One MCP tool as data: schemas, annotations and a handler over the domain layer. */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(input: z.output<I>, ctx: ToolContext): Promise<{ structured: z.output<O>; text: string }>;
}

/** A tool whose schemas were converted to JSON Schema once, at start-up. */
export interface PreparedTool {
  definition: ToolDefinition;
  inputSchema: StandardSchemaWithJSON;
  outputSchema: StandardSchemaWithJSON;
}

/** Typed constructor for a tool definition. */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(definition: ToolDefinition<I, O>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** Converts a tool's schemas once; every per-request server reuses the result. */
export function prepareTool(definition: ToolDefinition): PreparedTool {
  return {
    definition,
    inputSchema: withCachedJsonSchema(definition.input, 'input'),
    outputSchema: withCachedJsonSchema(definition.output, 'output'),
  };
}

/**
 * The SDK converts a schema to JSON Schema on every tools/list of every (per-request) server
 * instance; this wrapper answers from a memo instead, with the schema cut to what tools/list shows
 * (listed-schema.ts), keeping zod's validation as it is.
 */
function withCachedJsonSchema(schema: z.ZodType, role: 'input' | 'output'): StandardSchemaWithJSON {
  const std = (schema as unknown as StandardSchemaWithJSON)['~standard'];
  const memo = new Map<string, Record<string, unknown>>();
  const converted = (io: 'input' | 'output') => (options: { target: string }) => {
    const key = `${io}:${options.target}`;
    let json = memo.get(key);
    if (!json) {
      const full = std.jsonSchema[io](options as Parameters<typeof std.jsonSchema.input>[0]);
      json = role === 'input' ? listedInputSchema(full) : listedOutputSchema(full);
      memo.set(key, json);
    }
    return json;
  };
  // Warm the side the SDK will ask for now, so a schema that cannot convert fails start-up, not a request.
  converted(role)({ target: 'draft-2020-12' });
  return {
    '~standard': {
      version: std.version,
      vendor: std.vendor,
      validate: std.validate,
      jsonSchema: { input: converted('input'), output: converted('output') },
    },
  } as StandardSchemaWithJSON;
}

/** The result a tool returns on success: text for the model, structured content for programs. */
export function toolResult(structured: unknown, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}
