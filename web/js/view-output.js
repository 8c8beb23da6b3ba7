// The output stage: the picture-in-picture inset (start, move to a corner, mute, swap,
// stop) and the watermark (text, place, size, colour; on and off). Positions and sizes are
// fractions of the output frame, as the API has them.

import { $, setAttr, setHidden, setText } from './dom.js';
import { positionLabel } from './format.js';

const MARGIN = 0.05; // the default inset (0.65, 0.65, 0.3, 0.3) sits 5% off the corner

/// The rect for an inset of `size` (fraction of width and height) in `corner`.
export function cornerRect(corner, width = 0.3, height = width) {
  const left = corner.endsWith('left');
  const top = corner.startsWith('top');
  const round = (n) => Math.round(n * 1000) / 1000;
  return {
    x: round(left ? MARGIN : Math.max(0, 1 - MARGIN - width)),
    y: round(top ? MARGIN : Math.max(0, 1 - MARGIN - height)),
    width,
    height,
  };
}

function cornerOf(rect) {
  const h = rect.x + rect.width / 2 < 0.5 ? 'left' : 'right';
  const v = rect.y + rect.height / 2 < 0.5 ? 'top' : 'bottom';
  return `${v}-${h}`;
}

/// "#ffffff" and 70 (%) -> "#FFFFFFB3".
function rgba(hex, opacityPercent) {
  // * 255 / 100, not * 2.55: 50 * 2.55 is 127.4999… in binary and would round to 7F.
  const alpha = Math.round((Math.min(100, Math.max(0, opacityPercent)) * 255) / 100);
  return `${hex.toUpperCase()}${alpha.toString(16).toUpperCase().padStart(2, '0')}`;
}

export function mountOutput({ actions }) {
  const pipForm = $('[data-form="pip"]');
  const pipState = $('[data-field="pip-state"]');
  const pipUri = $('[data-field="pip-uri"]');
  const pipInset = $('[data-field="pip-inset"]');
  const pipMute = $('[data-action="pip-mute"]');
  const pipSwap = $('[data-action="pip-swap"]');
  const pipStop = $('[data-action="pip-stop"]');
  const moves = Array.from(document.querySelectorAll('[data-action="pip-move"]'));

  const wmForm = $('[data-form="watermark"]');
  const wmStatus = $('[data-field="watermark"]');
  const wmIntervalField = $('[data-field="watermark-interval-field"]');
  const wmOff = $('[data-action="watermark-off"]');

  let player = null;

  pipForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(pipForm);
    const uri = String(data.get('pip-uri') ?? '').trim();
    if (!uri) {
      pipForm.elements['pip-uri'].focus();
      return;
    }
    const body = { uri, muted: data.get('pip-muted') === 'on' };
    const corner = String(data.get('pip-corner') ?? '');
    const size = Number(data.get('pip-size'));
    // "Default" with the default size lets the daemon place it; anything else is explicit.
    if (corner || size !== 0.3) body.rect = cornerRect(corner || 'bottom-right', size);
    actions.pipStart(body);
  });
  for (const button of moves) {
    button.addEventListener('click', () => {
      const rect = player?.pip?.rect;
      actions.pipUpdate({ rect: cornerRect(button.dataset.corner, rect?.width ?? 0.3, rect?.height ?? 0.3) });
    });
  }
  pipMute.addEventListener('click', () => actions.pipUpdate({ muted: !(player?.pip?.muted ?? true) }));
  pipSwap.addEventListener('click', () => actions.pipSwap());
  pipStop.addEventListener('click', () => actions.pipStop());

  wmForm.elements['watermark-position'].addEventListener('change', (event) => {
    setHidden(wmIntervalField, event.target.value !== 'random');
  });
  wmForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(wmForm);
    const text = String(data.get('watermark-text') ?? '').trim();
    if (!text) {
      wmForm.elements['watermark-text'].focus();
      return;
    }
    const position = String(data.get('watermark-position'));
    const body = {
      text,
      position,
      size: Math.min(0.5, Math.max(0.01, Number(data.get('watermark-size')) / 100 || 0.05)),
      color: rgba(String(data.get('watermark-color')), Number(data.get('watermark-opacity') ?? 70)),
    };
    if (position === 'random') body.interval = Math.min(3600, Math.max(0.5, Number(data.get('watermark-interval')) || 10));
    actions.watermarkSet(body);
  });
  wmOff.addEventListener('click', () => actions.watermarkRemove());

  return function render(state) {
    player = state.player;
    const pip = player.pip;
    setText(pipState, pip
      ? [pip.state, positionLabel(cornerOf(pip.rect)), pip.muted ? 'muted' : 'with sound', pip.swapped ? 'swapped' : '']
        .filter(Boolean).join(' · ')
      : 'Off');
    setAttr(pipState, 'data-state', pip ? pip.state : 'off');
    setText(pipUri, pip ? (pip.error ? `${pip.uri}: ${pip.error.message ?? pip.error.code}` : pip.uri) : '');
    pipUri.classList.toggle('error-text', Boolean(pip?.error));
    setHidden(pipInset, !pip);
    if (pip) {
      const { x, y, width, height } = pip.rect;
      Object.assign(pipInset.style, {
        left: `${x * 100}%`, top: `${y * 100}%`, width: `${width * 100}%`, height: `${height * 100}%`,
      });
      pipInset.classList.toggle('swapped', pip.swapped);
    }
    setText(pipMute, pip && !pip.muted ? 'Mute inset' : 'Unmute inset');
    for (const el of [pipMute, pipSwap, pipStop, ...moves]) el.classList.toggle('inactive', !pip);

    const wm = player.watermark;
    if (!wm) {
      setText(wmStatus, 'None');
    } else {
      const what = wm.text !== null && wm.text !== undefined ? `“${wm.text}”` : `Image ${wm.image}`;
      const where = wm.position === 'random' ? `jumps every ${wm.interval} s` : positionLabel(wm.position);
      setText(wmStatus, `${what} · ${where} · ${Math.round(wm.size * 1000) / 10}%${wm.text ? ` · ${wm.color}` : ''}`);
    }
    wmStatus.classList.toggle('on', Boolean(wm));
  };
}
