import { useNavigate } from 'react-router';
import type { CreatedKey } from '../../lib/api.js';
import { CopyButton } from '../../components/copy.js';
import { Dialog } from '../../components/dialog.js';
import { rememberSecret } from '../../lib/secret-memory.js';
import './keys.css';

/** The one time a secret is visible. Closing the dialog drops it from the page. */
export function SecretDialog({ created, onClose }: { created: CreatedKey | null; onClose(): void }) {
  const navigate = useNavigate();
  return (
    <Dialog
      open={created !== null}
      onOpenChange={(o) => !o && onClose()}
      title={`Key "${created?.key.name ?? ''}" created`}
    >
      {created ? (
        <div className="form">
          <p className="warning" role="note">
            Copy the secret now. Tollgate keeps only its hash: it cannot show it again. If you lose it, delete the key
            and create another.
          </p>
          <div className="secret-row">
            <code className="secret" data-testid="new-secret">
              {created.secret}
            </code>
            <CopyButton value={created.secret} what="secret" />
          </div>
          <div className="dialog-actions">
            <button
              type="button"
              className="button"
              onClick={() => {
                rememberSecret(created.key.name, created.secret);
                onClose();
                void navigate(`/playground?key=${encodeURIComponent(created.key.name)}`);
              }}
            >
              Try it in the playground
            </button>
            <button type="button" className="button button-primary" onClick={onClose} autoFocus>
              I have copied it
            </button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}
