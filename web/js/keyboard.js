// Keyboard shortcuts: Space plays or pauses, Left/Right seek 5 s, Up/Down change the
// volume. Keys typed into a field, or handled by a focused control (a button's Space, a
// slider's arrows), stay theirs.

import { isTyping } from './dom.js';

const SEEK_STEP_S = 5;
const VOLUME_STEP = 0.05;

export function mountKeyboard({ actions, getPlayer }) {
  // Held or quickly repeated keys run ahead of the daemon's settings events: count from
  // the last volume asked for until the keys rest for a moment.
  let askedVolume = null;
  let restTimer = null;

  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (isTyping(target) || document.querySelector('dialog[open]')) return;
    const onControl = target instanceof Element && target.closest('button, input[type="range"]');
    const player = getPlayer();

    switch (event.key) {
      case ' ':
      case 'Spacebar':
        if (onControl) return; // Space clicks the focused button; do not act twice
        event.preventDefault(); // and do not scroll the page
        if (player.state === 'playing' || player.state === 'buffering') actions.pause();
        else actions.play();
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
        if (onControl && target.matches('input[type="range"]')) return;
        event.preventDefault();
        actions.seekBy(event.key === 'ArrowLeft' ? -SEEK_STEP_S : SEEK_STEP_S);
        break;
      case 'ArrowUp':
      case 'ArrowDown': {
        if (onControl && target.matches('input[type="range"]')) return;
        event.preventDefault();
        const step = event.key === 'ArrowUp' ? VOLUME_STEP : -VOLUME_STEP;
        // Up to 2 (the slider's top) by keys; a louder volume set elsewhere is kept.
        const base = askedVolume ?? player.volume;
        const ceiling = Math.max(2, base);
        const volume = Math.round(Math.min(ceiling, Math.max(0, base + step)) * 100) / 100;
        askedVolume = volume;
        clearTimeout(restTimer);
        restTimer = setTimeout(() => { askedVolume = null; }, 1000);
        if (volume !== base) actions.set({ volume });
        break;
      }
      default:
        break;
    }
  });
}
