// Playback settings: volume and mute, rate, audio delay, repeat.

import { $, isBusy, setAttr, setText, setValue, syncOptions, whileBusy } from './dom.js';
import { formatPercent } from './format.js';
import { latestOnly } from './latest.js';

const RATES = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4];

export function mountSettings({ actions }) {
  const volume = $('[data-action="volume"]');
  const volumeOut = $('[data-field="volume"]');
  const mute = $('[data-action="mute"]');
  const rate = $('[data-action="rate"]');
  const delay = $('[data-action="audio-delay"]');
  const repeat = $('[data-action="repeat"]');

  let player = null;
  let current = null;
  // After the daemon's answer the control shows the player's value again: the new one, or
  // the old one if the change was refused.
  const settle = (el, promise) => whileBusy(el, promise).then(() => current && render(current));

  // Volume follows the slider while it moves (throttled to one request at a time), and
  // the slider ignores the daemon's echoes until the hand lets go.
  let adjusting = false;
  const sendLatest = latestOnly((value) => actions.set({ volume: value }));
  let pushed = null;
  const sendVolume = () => {
    const value = Number(volume.value);
    if (value !== pushed) settle(volume, sendLatest(value));
    pushed = value;
  };
  function paintVolume() {
    volume.style.setProperty('--fill', `${Math.min(100, (Number(volume.value) / Number(volume.max)) * 100)}%`);
    setAttr(volume, 'aria-valuetext', formatPercent(Number(volume.value)));
  }
  volume.addEventListener('input', () => {
    adjusting = true;
    setText(volumeOut, formatPercent(Number(volume.value)));
    paintVolume();
    sendVolume();
  });
  volume.addEventListener('change', () => {
    adjusting = false;
    sendVolume();
    pushed = null; // the next drag starts afresh, even at the same value
  });

  mute.addEventListener('click', () => actions.set({ muted: !(player?.muted) }));
  rate.addEventListener('change', () => settle(rate, actions.set({ rate: Number(rate.value) })));
  repeat.addEventListener('change', () => settle(repeat, actions.set({ repeat: repeat.value })));
  delay.addEventListener('change', () => {
    const value = Number(delay.value);
    if (delay.value !== '' && Number.isFinite(value)) settle(delay, actions.set({ audioDelay: Math.max(-60, Math.min(60, value)) }));
  });

  function render(state) {
    current = state;
    player = state.player;
    if (!adjusting && !isBusy(volume)) {
      setValue(volume, String(player.volume));
      setText(volumeOut, formatPercent(player.volume));
    }
    paintVolume();

    // A toggle keeps its name; aria-pressed says whether it is on.
    setAttr(mute, 'aria-pressed', String(player.muted));
    volume.classList.toggle('muted', player.muted);

    // A rate set by a script (1.1, say) is shown as an extra choice rather than lost.
    const rates = RATES.includes(player.rate) ? RATES : [...RATES, player.rate].sort((a, b) => a - b);
    syncOptions(rate, rates.map((r) => ({ value: String(r), label: `${r}×` })), String(player.rate));

    setValue(delay, String(player.audioDelay));
    setValue(repeat, player.repeat);
  }

  return render;
}
