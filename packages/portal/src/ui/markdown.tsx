import MarkdownIt from 'markdown-it';

/**
 * Entries are Markdown written by people and agents, so their HTML is never trusted: raw HTML is
 * shown as text (`html: false`), and markdown-it's link check refuses javascript:, vbscript:,
 * file: and data: URLs (data: images of common types aside). Links open in a new tab without
 * giving that page a handle on the portal.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i]!.attrSet('target', '_blank');
  tokens[i]!.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, i, options, env, self);
};

/** Safe HTML for a Markdown text. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}

/** An entry's content, rendered as Markdown. */
export function Markdown({ text, className }: { text: string; className?: string }) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it with html disabled escapes every tag the text holds and refuses script URLs (see above)
  return <div className={`markdown ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}
