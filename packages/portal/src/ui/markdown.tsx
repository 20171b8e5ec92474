import MarkdownIt from 'markdown-it';

/**
 * Entries are Markdown written by people and agents, so their HTML is never trusted: raw HTML is
 * shown as text (`html: false`), and markdown-it's link check refuses javascript:, vbscript:,
 * file: and data: URLs (data: images of common types aside). Links open in a new tab without
 * giving that page a handle on the portal.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i]!.attrSet('target', '_blank');
  tokens[i]!.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, i, options, env, self);
};

/**
 * An entry's headings sit inside the page's own (a dialog's h2): they start one level below `headingBase`
 * and never skip a level going down, so the page's outline stays in order (axe: heading-order).
 */
md.core.ruler.push('nest_headings', (state) => {
  const base = (state.env as { headingBase?: number }).headingBase ?? 0;
  let previous = base;
  const open: string[] = [];
  for (const token of state.tokens) {
    if (token.type === 'heading_open') {
      const written = Number(token.tag.slice(1));
      const level = Math.min(6, Math.max(base + 1, Math.min(written + base, previous + 1)));
      previous = level;
      token.tag = `h${level}`;
      open.push(token.tag);
    } else if (token.type === 'heading_close') token.tag = open.pop() ?? token.tag;
  }
});

/** Safe HTML for a Markdown text; with `headingBase`, its headings nest below a heading of that level. */
export function renderMarkdown(text: string, headingBase = 0): string {
  return md.render(text, { headingBase });
}

/** An entry's content, rendered as Markdown, its headings below the `headingBase` level of the page around it. */
export function Markdown({
  text,
  className,
  headingBase = 2,
}: {
  text: string;
  className?: string;
  headingBase?: number;
}) {
  return (
    <div
      className={`markdown ${className ?? ''}`}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it with html disabled escapes every tag the text holds and refuses script URLs (see above)
      dangerouslySetInnerHTML={{ __html: renderMarkdown(text, headingBase) }}
    />
  );
}

/** An entry's content as one line of plain text for lists (no Markdown marks), cut at `max` characters with an ellipsis. */
export function plainPreview(text: string, max = 180): string {
  const words: string[] = [];
  for (const token of md.parse(text, {})) {
    if (token.type === 'inline')
      words.push(
        (token.children ?? [])
          .map((c) =>
            c.type === 'text' || c.type === 'code_inline'
              ? c.content
              : c.type === 'softbreak' || c.type === 'hardbreak'
                ? ' '
                : '',
          )
          .join(''),
      );
    if (token.type === 'fence' || token.type === 'code_block') words.push(token.content);
  }
  const plain = words.join(' ').replace(/\s+/g, ' ').trim();
  return plain.length > max ? `${plain.slice(0, max - 1).trimEnd()}…` : plain;
}
