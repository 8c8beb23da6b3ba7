// Track and quality pickers: audio track, subtitle track (or off), HLS variant (auto or
// pinned) with the ladder and which rung is being downloaded now.

import { $, setDisabled, setHidden, setText, syncOptions, whileBusy } from './dom.js';
import { trackLabel, variantLabel } from './format.js';

const OFF = ''; // the subtitle picker's "off" value; sent as {"id": null}

export function mountTracks({ actions }) {
  const audio = $('[data-action="audio-track"]');
  const subtitle = $('[data-action="subtitle-track"]');
  const variant = $('[data-action="variant"]');
  const variantMode = $('[data-field="variant-mode"]');
  const ladder = $('[data-field="ladder"]');

  let current = null;

  // Once answered, a refused pick snaps back to what the player has.
  audio.addEventListener('change', async () => {
    if (audio.value) await whileBusy(audio, actions.audioTrack(audio.value));
    render(current);
  });
  subtitle.addEventListener('change', async () => {
    await whileBusy(subtitle, actions.subtitleTrack(subtitle.value === OFF ? null : subtitle.value));
    render(current);
  });
  variant.addEventListener('change', async () => {
    await whileBusy(variant, actions.variant(variant.value));
    render(current);
  });

  function render(state) {
    current = state;
    const { tracks, variants, variant: v } = state.player;

    const audioTracks = tracks.audio ?? [];
    const selectedAudio = audioTracks.find((t) => t.selected);
    syncOptions(audio,
      audioTracks.length ? audioTracks.map((t, i) => ({ value: t.id, label: trackLabel(t, i) })) : [{ value: '', label: 'None' }],
      selectedAudio ? selectedAudio.id : (audioTracks[0]?.id ?? ''));
    setDisabled(audio, audioTracks.length === 0);

    const subtitleTracks = tracks.subtitle ?? [];
    const selectedSubtitle = subtitleTracks.find((t) => t.selected);
    syncOptions(subtitle,
      [{ value: OFF, label: 'Off' }, ...subtitleTracks.map((t, i) => ({ value: t.id, label: trackLabel(t, i) }))],
      selectedSubtitle ? selectedSubtitle.id : OFF);
    setDisabled(subtitle, subtitleTracks.length === 0);

    const byId = new Map(variants.map((x) => [x.id, x]));
    const now = v.current ? byId.get(v.current) : null;
    syncOptions(variant,
      [{ value: 'auto', label: 'Auto' }, ...variants.map((x) => ({ value: x.id, label: variantLabel(x) }))],
      v.mode === 'manual' && v.selected ? v.selected : 'auto');
    setDisabled(variant, variants.length === 0);
    setText(variantMode, variants.length === 0 ? '' : `(${v.mode === 'manual' ? 'pinned' : 'auto'}${now ? `, now ${variantLabel(now)}` : ''})`);

    setHidden(ladder, variants.length === 0);
    const key = JSON.stringify([variants, v]);
    if (ladder.dataset.key !== key) {
      ladder.dataset.key = key;
      // Highest first, as quality menus usually read.
      ladder.replaceChildren(...[...variants].reverse().map((x) => {
        const item = document.createElement('li');
        item.classList.toggle('current', x.id === v.current);
        item.classList.toggle('pinned', v.mode === 'manual' && x.id === v.selected);
        const label = document.createElement('span');
        label.textContent = variantLabel(x);
        const tags = document.createElement('span');
        tags.className = 'ladder-tags';
        tags.textContent = [x.id === v.current ? 'playing' : '', v.mode === 'manual' && x.id === v.selected ? 'pinned' : '']
          .filter(Boolean).join(' · ');
        item.append(label, tags);
        if (x.codecs) item.title = x.codecs;
        return item;
      }));
    }
  }
  return render;
}
