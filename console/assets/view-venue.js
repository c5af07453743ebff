/**
 * Venue screen (`/console/events/:slug/venue`): the event's check-in QR code, large, for a
 * screen at the entrance; no console chrome. The PNG of GET /api/events/:slug/checkin-qr is
 * fetched with the token and shown from a blob: URL (the policy allows blob: images).
 */
import { ApiError, get, request, SessionEnded, slugPath } from './api.js';
import { errorBox, fill, h } from './dom.js';

export function venueView(ctx) {
  const heading = h('h1', { testid: 'venue-name' }, 'Check-in');
  const body = h('div', { class: 'venue-body' });
  const root = h('section', { testid: 'view-venue', 'aria-busy': 'true', class: 'venue' }, heading, body);
  let objectUrl = null;

  (async () => {
    try {
      const slug = slugPath(ctx.slug);
      const [details, qr] = await Promise.all([
        get(`/api/events/${slug}/details`),
        request('GET', `/api/events/${slug}/checkin-qr`, { raw: true }),
      ]);
      const blob = await qr.blob();
      if (!ctx.alive()) return;
      const { event, checkin } = details.data;
      heading.textContent = event.name;
      document.title = `Check-in · ${event.name}`;
      objectUrl = URL.createObjectURL(blob);
      const img = h('img', {
        src: objectUrl,
        testid: 'venue-qr',
        class: 'qr',
        alt: `Check-in QR code of ${event.name}`,
        width: '512',
        height: '512',
      });
      fill(
        body,
        img,
        h('p', { class: 'venue-hint' }, 'Scan to check in, or open'),
        h('p', { class: 'venue-url', testid: 'venue-url' }, checkin?.url ?? ''),
      );
      // shown = decoded, so aria-busy turns false with the code on screen
      await img.decode().catch(() => {});
    } catch (err) {
      if (err instanceof SessionEnded || !ctx.alive()) return;
      if (err instanceof ApiError && err.status === 404) heading.textContent = 'Event not found';
      else fill(body, errorBox('venue-error', err));
    } finally {
      if (ctx.alive()) root.setAttribute('aria-busy', 'false');
    }
  })();
  return { root, cleanup: () => objectUrl && URL.revokeObjectURL(objectUrl) };
}
