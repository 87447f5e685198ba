// Ferry's pages for people: first-run setup, sign-in (with a passkey), a
// file's page, short-URL passwords, and the signed-in shell (its menus, the
// version); the dashboard's pages themselves are the Preact bundle. Plain
// browser JavaScript, served by Ferry itself; no framework, no build step.
// Each part starts when its elements are on the page.
"use strict";

const $ = (id) => document.getElementById(id);

/** Shows `text` in the page's status line (an alert when it is an error). */
function say(text, kind = "error") {
  const line = $("message");
  line.setAttribute("role", kind === "error" ? "alert" : "status");
  line.textContent = text;
  line.className = kind;
}

/** Calls the API with a JSON body; resolves with the JSON reply, rejects with its `error`. */
async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `The server answered ${response.status}`);
  return data;
}

/** Runs `action` on submit (or click) with the control disabled; errors go to the status line. */
function on(element, event, action) {
  element?.addEventListener(event, async (e) => {
    e.preventDefault();
    const control = e.submitter ?? e.currentTarget;
    control.disabled = true;
    try {
      await action(e);
    } catch (error) {
      say(error.name === "NotAllowedError" ? "The passkey prompt was cancelled." : error.message);
    } finally {
      control.disabled = false;
    }
  });
}

// WebAuthn's binary fields travel as base64url in JSON.
function toBase64url(buffer) {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const withIds = (list) => (list ?? []).map((c) => ({ ...c, id: fromBase64url(c.id) }));

/** A credential as the server reads it (`PublicKeyCredential.toJSON()`'s shape). */
function credentialJson(credential) {
  const r = credential.response;
  const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toBase64url(r.attestationObject);
    response.transports = r.getTransports?.() ?? [];
  } else {
    response.authenticatorData = toBase64url(r.authenticatorData);
    response.signature = toBase64url(r.signature);
    if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

// Sign-in page.
const totpStep = $("totp-step");
on($("login-form"), "submit", async () => {
  const body = { username: $("username").value, password: $("password").value };
  if (!totpStep.hidden) body.code = $("code").value.trim();
  const result = await api("POST", "/api/auth/login", body);
  if (result.totp) {
    totpStep.hidden = false;
    $("code").required = true;
    $("code").focus();
    say("Enter the code from your authenticator app.", "info");
    return;
  }
  location.assign("/dashboard");
});

// The TOTP step after signing in through an OAuth provider.
on($("oauth-totp-form"), "submit", async () => {
  await api("POST", "/api/auth/oauth/totp", { code: $("oauth-code").value.trim() });
  location.assign("/dashboard");
});

// First-run setup: the first account (signed in by the answer), then the finished step.
on($("setup-form"), "submit", async () => {
  const username = $("username").value;
  const { user } = await api("POST", "/api/setup", { username, password: $("password").value });
  $("setup-user").textContent = user.username;
  $("setup-start").hidden = true;
  $("setup-done").hidden = false;
  say("", "info");
  $("setup-done-title").focus();
});

// Registration page (invite links lead here).
on($("register-form"), "submit", async () => {
  const body = { username: $("username").value, password: $("password").value };
  const code = $("invite").value.trim();
  if (code) body.code = code;
  await api("POST", "/api/auth/register", body);
  location.assign("/dashboard");
});

// The password page of a protected short URL: once the password is right,
// this page again, which now redirects to the destination (one counted view).
const urlPasswordForm = $("url-password-form");
on(urlPasswordForm, "submit", async () => {
  const id = urlPasswordForm.dataset.urlId;
  await api("POST", `/api/user/urls/${encodeURIComponent(id)}/password`, {
    password: $("url-password").value,
  });
  location.replace(`/view/url/${encodeURIComponent(id)}`);
});

// The password page of a share link: once the password is right, the link again.
const sharePasswordForm = $("share-password-form");
on(sharePasswordForm, "submit", async () => {
  const code = sharePasswordForm.dataset.code;
  await api("POST", `/api/shares/${encodeURIComponent(code)}/password`, {
    password: $("share-password").value,
  });
  location.reload();
});

on($("passkey-login"), "click", async () => {
  const { options } = await api("GET", "/api/auth/webauthn/options");
  const credential = await navigator.credentials.get({
    publicKey: {
      ...options,
      challenge: fromBase64url(options.challenge),
      allowCredentials: withIds(options.allowCredentials),
    },
  });
  await api("POST", "/api/auth/webauthn", { response: credentialJson(credential) });
  location.assign("/dashboard");
});

// Every signed-in page.
on($("logout"), "click", async () => {
  await api("POST", "/api/auth/logout");
  location.assign("/auth/login");
});

// File page: the password of a protected file, then the page again with its cookie.
const filePassword = $("file-password-form");
on(filePassword, "submit", async () => {
  const id = encodeURIComponent(filePassword.dataset.file);
  await api("POST", `/api/user/files/${id}/password`, { password: $("file-password").value });
  location.reload();
});

// Pages for visitors: the theme switch goes system → light → dark (the
// server's light and dark themes), kept in a cookie so the server renders the
// next page in it at once. Signed in, the theme is the user's own (Account).
const themeSwitch = $("theme-switch");
if (themeSwitch) {
  const root = document.documentElement;
  const CHOICES = ["system", "light", "dark"];
  const NAMES = { system: "System", light: "Light", dark: "Dark" };
  const ids = { light: themeSwitch.dataset.light, dark: themeSwitch.dataset.dark };
  const cookie = document.cookie.match(/(?:^|; )ferry_theme=(system|light|dark)/)?.[1];
  let current = cookie ??
    (root.dataset.theme === ids.dark
      ? "dark"
      : root.dataset.theme === ids.light
      ? "light"
      : "system");
  const show = () => {
    themeSwitch.textContent = `Theme: ${NAMES[current]}`;
    themeSwitch.setAttribute("aria-label", `Theme: ${NAMES[current]}, change`);
  };
  show();
  themeSwitch.addEventListener("click", () => {
    current = CHOICES[(CHOICES.indexOf(current) + 1) % CHOICES.length];
    if (current === "system") delete root.dataset.theme;
    else root.dataset.theme = ids[current];
    // Secure over HTTPS, as every cookie the server sets (routes/cookies.ts).
    const secure = location.protocol === "https:" ? "; secure" : "";
    document.cookie = `ferry_theme=${current}; path=/; max-age=31536000; samesite=lax${secure}`;
    show();
  });
}

// Signed-in pages: on a narrow screen the sidebar folds behind the menu
// button (the stylesheet folds it only once this has run, so it stays usable
// without the script); Escape or a click outside folds it again.
const menuToggle = $("menu-toggle");
const sidebar = $("sidebar");
if (menuToggle && sidebar) {
  document.body.classList.add("menu-ready");
  const setOpen = (open) => {
    sidebar.classList.toggle("open", open);
    menuToggle.setAttribute("aria-expanded", String(open));
  };
  menuToggle.addEventListener("click", () => {
    document.body.classList.add("menu-used");
    setOpen(!sidebar.classList.contains("open"));
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && sidebar.classList.contains("open")) {
      setOpen(false);
      menuToggle.focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (!sidebar.contains(e.target) && !menuToggle.contains(e.target)) setOpen(false);
  });
}

// The user menu: a disclosure that closes on Escape and on a click elsewhere.
const userMenu = $("user-menu");
if (userMenu) {
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && userMenu.open) {
      userMenu.open = false;
      userMenu.querySelector("summary").focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (userMenu.open && !userMenu.contains(e.target)) userMenu.open = false;
  });
}

// The version in the sidebar, with what the version service says of it.
const versionState = $("version-state");
if (versionState) {
  fetch("/api/version", { credentials: "same-origin" })
    .then((r) => r.ok ? r.json() : null)
    .then((info) => {
      const data = info?.data;
      if (!data?.latest) return;
      if (data.isLatest) {
        versionState.textContent = "Latest";
        versionState.className = "version-state latest";
        return;
      }
      const link = document.createElement(/^https?:/.test(data.latest.url) ? "a" : "span");
      if (link.tagName === "A") link.href = data.latest.url;
      link.rel = "noopener";
      link.textContent = `Update: ${data.latest.tag}`;
      versionState.replaceChildren(link);
      versionState.className = "version-state outdated";
    })
    .catch(() => {});
}
