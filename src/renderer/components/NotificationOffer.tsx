/** The one-time offer to turn on notifications, shown the first time one would have been sent. */
import { answerNotificationOffer } from '../state/attention';

export function NotificationOffer({ onDone }: { onDone: () => void }) {
  const answer = (allow: boolean) => {
    answerNotificationOffer(allow);
    onDone();
  };
  return (
    <div className="banner banner-info" role="status">
      <span className="banner-text">Loom can notify you when a reply is ready or needs you while you are in another tab or window.</span>
      <button type="button" className="primary" onClick={() => answer(true)}>
        Turn on notifications
      </button>
      <button type="button" onClick={() => answer(false)}>
        Not now
      </button>
    </div>
  );
}
