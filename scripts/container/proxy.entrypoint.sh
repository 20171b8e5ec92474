#!/bin/sh
# What the official nginx image does at start with /etc/nginx/templates/*.template: envsubst of the defined variables.
set -eu
envsubst '${CAIRN_PROXY_LISTEN} ${CAIRN_UPSTREAM_1} ${CAIRN_UPSTREAM_2}' < /etc/nginx/templates/default.conf.template > /etc/nginx/conf.d/default.conf
exec nginx -g 'daemon off;'
