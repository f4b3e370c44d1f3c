// A tiny DOM builder: h('button', { class: 'x', onclick: f }, 'text', child).
// Attributes starting with "on" become listeners; `false`, null and
// undefined attributes and children are skipped. No innerHTML anywhere, so
// names and chat text from other players can never become markup.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class' && Array.isArray(value)) {
      element.className = value.filter(Boolean).join(' ');
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (name in element && typeof value !== 'string') {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.append(child);
    else element.append(String(child));
  }
}

// Replaces the children of `parent`, keeping keyboard focus on the element
// with the same `data-focus` key after the change, or else on the first
// control of the same `data-focus-group` (a card just played is gone: the
// focus stays in the hand rather than falling back to the page).
export function replaceChildren(parent, ...children) {
  const active = document.activeElement;
  const inside = active && active !== parent && parent.contains(active);
  const key = inside ? active.dataset.focus : undefined;
  const group = inside ? active.closest('[data-focus-group]')?.dataset.focusGroup : undefined;
  parent.replaceChildren();
  append(parent, children);
  if (key === undefined && group === undefined) return;
  let target = key === undefined ? null : parent.querySelector(`[data-focus="${CSS.escape(key)}"]`);
  if (!target && group !== undefined) {
    const box = parent.querySelector(`[data-focus-group="${CSS.escape(group)}"]`);
    target = box?.querySelector('[tabindex="0"]') ?? box?.querySelector('[data-focus]');
  }
  target?.focus({ preventScroll: true });
}
