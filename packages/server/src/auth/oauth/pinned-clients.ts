import { invalidSetting } from '../../config/config-error.js';
import { entryName, PINNED_CLIENTS_VARIABLE, type PinnedClientsFile } from '../../config/pinned-clients-file.js';
import { type CimdMetadata, checkMetadataDocument, isCimdClientId } from './cimd-document.js';
import { LOOPBACK_REFUSED_MESSAGE } from './loopback.js';

/**
 * The operator's pinned Client ID Metadata Documents, each checked as a fetched one is, at start-up:
 * one bad entry stops the start with a message naming it, rather than a sign-in failing later.
 */
export function checkPinnedClients(
  pinned: PinnedClientsFile | undefined,
  allowLoopbackRedirects: boolean,
): ReadonlyMap<string, CimdMetadata> {
  const checked = new Map<string, CimdMetadata>();
  if (!pinned) return checked;
  for (const [clientId, document] of Object.entries(pinned.documents)) {
    const refuse = (problem: string) =>
      invalidSetting(
        PINNED_CLIENTS_VARIABLE,
        `${pinned.file}, entry ${entryName(clientId)}: ${problem}. Fix or remove that entry: each one is a client_id URL and a copy of the document that URL serves.`,
      );
    if (!clientId.startsWith('https://') || !isCimdClientId(clientId))
      throw refuse(
        'the key must be the client_id itself, an https URL with a path and without a fragment or credentials',
      );
    // A jwks_uri would be fetched whenever the client signs a request: a pin must not need the network.
    if ('jwks_uri' in document)
      throw refuse('it sets jwks_uri, which Cairn would have to fetch; put the keys in the document as jwks instead');
    const result = checkMetadataDocument(document, clientId, allowLoopbackRedirects);
    if ('problem' in result)
      throw refuse(
        result.problem === LOOPBACK_REFUSED_MESSAGE
          ? 'its redirect_uris include a loopback (localhost) callback, which CAIRN_OAUTH_ALLOW_LOOPBACK=false refuses'
          : result.problem,
      );
    checked.set(clientId, result.metadata);
  }
  return checked;
}
