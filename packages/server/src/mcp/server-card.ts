import { INSTALLER_USER_AGENT, KEY_PREFIX } from '@cairn/contract';
import { mcpResource, OAUTH_SCOPES, oauthIssuer } from '../auth/oauth/oauth-options.js';
import { listedInputSchema } from './listed-schema.js';
import { SERVED_PROTOCOL_VERSIONS } from './protocol-versions.js';
import { SERVER_INFO } from './server-factory.js';
import type { ToolDefinition } from './tool-definition.js';
import { TOOLS } from './tool-list.js';

// MCP Server Cards and their discovery, as docs/discovery.md and schema.json of
// github.com/modelcontextprotocol/experimental-ext-server-card (commit 8924e08, 2026-07-24) define them.

/** The Server Card media type (discovery.md, "MCP Server Cards"). */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
/** The AI Catalog media type (discovery.md, "Well-Known URI"). */
export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
/** The only `$schema` a v1 Server Card may carry (schema.json, ServerCard.$schema). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
/** The card's place: MCP reserves `<streamable-http-url>/server-card` (discovery.md, "Hosted Server Card Location"). */
export const SERVER_CARD_PATH = '/mcp/server-card';
/** The `_meta` key under which Cairn adds what the v1 card has no field for (reverse-DNS, as MetaObject asks). */
export const CARD_META_KEY = 'io.github.cairn/discovery';

/** What the card says about this deployment; all of it is public configuration. */
export interface ServerCardSettings {
  baseUrl: string;
  /** CAIRN_REQUIRE_USER_AGENT: whether an API key needs the installer User-Agent. */
  requireUserAgent: boolean;
}

/** One tool as the card lists it: what tools/list says, from the same definitions. */
export interface CardTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolDefinition['annotations'];
}

/**
 * The Server Card for this Cairn. Built from configuration and the tool registry only: it holds no
 * user, organization, key or datapack, so anyone may read it.
 */
export function buildServerCard(settings: ServerCardSettings) {
  const base = settings.baseUrl;
  const mcpUrl = mcpResource(base);
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverCardName(base),
    title: 'Cairn',
    description: 'Memory for AI agents: personal preferences, team standards and organization policies.',
    version: SERVER_INFO.version,
    websiteUrl: `${base}/`,
    remotes: [
      {
        type: 'streamable-http' as const,
        url: mcpUrl,
        headers: [
          {
            name: 'Authorization',
            description: `A Cairn API key (${KEY_PREFIX}…, made in the portal under Settings > API Keys). Leave it out to sign in with OAuth instead.`,
            isRequired: false,
            isSecret: true,
            value: 'Bearer {api_key}',
            variables: {
              api_key: {
                description: 'Your Cairn API key.',
                isRequired: true,
                isSecret: true,
                placeholder: `${KEY_PREFIX}…`,
              },
            },
          },
          {
            name: 'User-Agent',
            description: settings.requireUserAgent
              ? 'Required with an API key; OAuth tokens do not need it.'
              : 'Optional on this server.',
            isRequired: false,
            value: INSTALLER_USER_AGENT,
          },
        ],
        // Both eras: 2026-07-28 (server/discover, clientInfo on every request) and the 2025 ones (initialize).
        supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS],
      },
    ],
    _meta: {
      [CARD_META_KEY]: {
        portalUrl: `${base}/`,
        authentication: [
          {
            type: 'api_key',
            scheme: 'bearer',
            header: 'Authorization',
            keyPrefix: KEY_PREFIX,
            requiredHeaders: settings.requireUserAgent ? { 'User-Agent': INSTALLER_USER_AGENT } : {},
            keysUrl: `${base}/settings/api-keys`,
          },
          {
            type: 'oauth2',
            protectedResourceMetadata: `${base}/.well-known/oauth-protected-resource/mcp`,
            resource: mcpUrl,
            authorizationServer: oauthIssuer(base),
            scopes: [...OAUTH_SCOPES],
          },
        ],
        tools: TOOLS.map(cardTool),
      },
    },
  };
}

/** The AI Catalog (discovery.md, "AI Catalog"): one entry, pointing at this server's card. */
export function buildCatalog(settings: Pick<ServerCardSettings, 'baseUrl'>) {
  const host = new URL(settings.baseUrl).hostname;
  return {
    specVersion: '1.0',
    entries: [
      {
        identifier: `urn:air:${host}:mcp:${SERVER_INFO.name}`,
        type: SERVER_CARD_MEDIA_TYPE,
        url: `${settings.baseUrl}${SERVER_CARD_PATH}`,
      },
    ],
  };
}

/**
 * The card's reverse-DNS name: the base URL's host reversed, then `/cairn`. A card named
 * `com.example/weather` is catalogued as `urn:air:example.com:mcp:weather` (discovery.md), so the
 * name and the catalog identifier name the same publisher: whoever runs this Cairn.
 */
export function serverCardName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  const isAddress = /^\d+(\.\d+){3}$/.test(host) || host.startsWith('[');
  const namespace = isAddress
    ? host.replace(/[^a-zA-Z0-9.-]/g, '-').replace(/^-+|-+$/g, '')
    : host.split('.').reverse().join('.');
  return `${namespace}/${SERVER_INFO.name}`;
}

/** The tool's JSON Schema exactly as the SDK makes it for tools/list (an object schema, draft 2020-12). */
function cardTool(definition: ToolDefinition): CardTool {
  const std = (
    definition.input as unknown as {
      '~standard': { jsonSchema: { input(options: { target: string }): Record<string, unknown> } };
    }
  )['~standard'];
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: { type: 'object', ...listedInputSchema(std.jsonSchema.input({ target: 'draft-2020-12' })) },
    annotations: definition.annotations,
  };
}
