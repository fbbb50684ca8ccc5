// pixd console: local times, copy buttons and live updates. No framework, nothing fetched from elsewhere.
(() => {
  var format = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    dateStyle: 'short',
    timeStyle: 'medium',
  });
  function localTimes(root) {
    root.querySelectorAll('time[datetime]').forEach((el) => {
      var at = new Date(el.getAttribute('datetime'));
      if (!isNaN(at.getTime())) el.textContent = format.format(at);
    });
  }
  function copyButtons(root) {
    root.querySelectorAll('button[data-copy]').forEach((button) => {
      button.addEventListener('click', () => {
        var source = document.getElementById(button.getAttribute('data-copy'));
        source.select();
        var done = () => {
          button.textContent = 'Copiado';
        };
        if (navigator.clipboard)
          navigator.clipboard.writeText(source.value).then(done, () => {
            document.execCommand('copy');
            done();
          });
        else {
          document.execCommand('copy');
          done();
        }
      });
    });
  }
  function enhance(root) {
    localTimes(root);
    copyButtons(root);
  }
  document.addEventListener('DOMContentLoaded', () => {
    enhance(document);
    var main = document.querySelector('main[data-live]');
    var indicator = document.getElementById('live');
    if (!main || !indicator || !window.EventSource) return;
    var region = document.getElementById('live-region');
    var loading = false,
      again = false;
    function reload() {
      // Not while the person types in a form of the region: their input would be lost.
      if (region.contains(document.activeElement) && /INPUT|SELECT|TEXTAREA/.test(document.activeElement.tagName))
        return;
      if (loading) {
        again = true;
        return;
      }
      loading = true;
      void fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
        .then((text) => {
          var next = new DOMParser().parseFromString(text, 'text/html').getElementById('live-region');
          if (next) {
            region.innerHTML = next.innerHTML;
            enhance(region);
          }
          indicator.setAttribute('data-updated', String(Date.now()));
        })
        .catch(() => {})
        .then(() => {
          loading = false;
          if (again) {
            again = false;
            reload();
          }
        });
    }
    var events = new EventSource('/console/events');
    // A change between this page's render and the stream's first look would go unseen: look once on (re)open.
    events.onopen = () => {
      indicator.setAttribute('data-state', 'on');
      indicator.textContent = 'ao vivo';
      reload();
    };
    events.onerror = () => {
      indicator.setAttribute('data-state', 'off');
      indicator.textContent = 'offline';
    };
    events.addEventListener('change', reload);
  });
})();
