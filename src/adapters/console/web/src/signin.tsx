/**
 * Sign-in with an operator's, a reviewer's or an approver's token. The token is checked
 * with `GET /v1/whoami` before it is kept (in sessionStorage only); the form
 * is never submitted to a URL, so the token cannot end up in one.
 */
import { useState } from 'preact/hooks';
import { ApiError, get } from './api.js';
import { CONSOLE_ROLES, saveToken, type Principal } from './session.js';
import { Busy } from './ui.js';

export function SignIn({ onSignedIn }: { onSignedIn: (p: Principal) => void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    const t = token.trim();
    if (!t) return setError('Paste your token first.');
    setBusy(true);
    setError(null);
    try {
      const p = await get<Principal>('/v1/whoami', t);
      if (!CONSOLE_ROLES.includes(p.role)) {
        setError(`This console is for operators, reviewers and approvers: ${/^[aeiou]/.test(p.role) ? 'an' : 'a'} ${p.role} token cannot use it.`);
        return;
      }
      saveToken(t);
      setToken('');
      onSignedIn(p);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'That token is not accepted. Check it and try again.' : `Cannot sign in: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" tabIndex={-1} class="signin">
      <form class="card" method="post" onSubmit={submit} aria-labelledby="signin-title" autocomplete="off">
        <h1 id="signin-title">Sign in to plangate</h1>
        <p class="muted">Use an operator's, a reviewer's or an approver's token. It is kept in this browser tab only, and forgotten when you sign out or close the tab.</p>
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="off" spellcheck={false} value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)} required aria-describedby={error ? 'signin-error' : undefined} />
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
        {busy && <Busy label="Checking the token" />}
        {error && <p id="signin-error" class="problem" role="alert">{error}</p>}
      </form>
    </main>
  );
}
