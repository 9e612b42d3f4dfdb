/** Fired on window when an admin call finds the session gone; the app then shows the login screen. */
export const LOGGED_OUT_EVENT = 'tollgate:logged-out';
