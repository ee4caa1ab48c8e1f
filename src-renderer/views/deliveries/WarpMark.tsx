import { warpMark, warpNotice } from './schedule-words';

/** The list's mark on a warped delivery, so a compressed time is never read as a real one. */
export function WarpMark({ warp }: { warp: number }) {
  const mark = warpMark(warp);
  if (mark === null) return null;
  return (
    <span className="warp-badge" data-testid="delivery-warp" data-warp={warp} title={warpNotice(warp) ?? undefined}>
      {/* The words give way in a narrow list; the factor stays, so the row still says it is warped. */}
      <span className="warp-words">{mark.slice(0, mark.indexOf('×'))}</span>
      {mark.slice(mark.indexOf('×'))}
    </span>
  );
}

/** The detail's notice on a warped delivery. */
export function WarpNotice({ warp }: { warp: number }) {
  const notice = warpNotice(warp);
  if (notice === null) return null;
  return (
    <p className="notice warn warp-notice" role="note" data-testid="detail-warp" data-warp={warp}>
      {notice}
    </p>
  );
}
