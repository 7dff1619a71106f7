// The plotly.js traces posviz draws: scatter (in core), bar and heatmap, and the words of a
// chart's tool bar in Chinese (a chart drawn on a Chinese page asks for locale zh-CN). Nothing
// else is loaded.
var Plotly = require('plotly.js/lib/core');

Plotly.register([require('plotly.js/lib/bar'), require('plotly.js/lib/heatmap'),
                 require('plotly.js/lib/locales/zh-cn')]);

module.exports = Plotly;
