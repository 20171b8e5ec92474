import { useEffect, useRef, useState } from 'react';

/**
 * Tells screen-reader users that a new page is showing: a portal navigation changes the content but
 * not the document, so nothing else announces it. Says the page's heading once it has rendered
 * (the first page load is left to the screen reader itself).
 */
export function RouteAnnouncer({ path }: { path: string }) {
  const [said, setSaid] = useState('');
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation, which is what a new path means
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // A page's heading can wait for its data: ask again until it is there (a second at most).
    let tries = 0;
    const timer = setInterval(() => {
      const heading = document.querySelector('main h1')?.textContent?.trim();
      if (heading || ++tries >= 10) {
        clearInterval(timer);
        setSaid(`${heading || document.title.replace(/ · Cairn$/, '')}, page loaded`);
      }
    }, 100);
    return () => clearInterval(timer);
  }, [path]);
  return (
    <p className="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="route-announcer">
      {said}
    </p>
  );
}
