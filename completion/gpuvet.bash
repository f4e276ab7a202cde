# bash completion for gpuvet. The commands, options, rule IDs and workloads are read from gpuvet
# itself (its --help texts, `--list-options` and `gpuvet audit --list-rules`), so new ones complete
# without an edit.
# Texts parsed for a fixed label ("workloads:", "usage:") are asked for with --lang en.
# Installed as share/bash-completion/completions/gpuvet; or `source completion/gpuvet.bash`.

# Options of `gpuvet COMMAND` (or of gpuvet itself), as its option table lists them
# (`gpuvet [COMMAND] --list-options`); from a gpuvet without the listing, the --words its help
# lists, not those quoted in `backticks` (which name other commands' options).
_gpuvet_options()
{
    "$1" ${2:+"$2"} --list-options 2>/dev/null && return
    "$1" ${2:+"$2"} --help 2>/dev/null | sed 's/`[^`]*`//g' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# GPU ids of the table (`gpuvet gpus --json`), built-in model ids (`gpuvet plan --list-models`, first
# column) and the languages of --lang (its usage line).
_gpuvet_gpu_ids()
{
    "$1" gpus --json 2>/dev/null | sed -n 's/^ *"id": "\([^"]*\)".*/\1/p'
}
_gpuvet_model_ids()
{
    "$1" plan --list-models 2>/dev/null | cut -f1
}
_gpuvet_langs()
{
    "$1" --lang en --help 2>/dev/null | sed -n 's/.*\[--lang \([a-z|]*\)\].*/\1/p' | tr '|' ' '
}

_gpuvet()
{
    local cur prev gpuvet=${COMP_WORDS[0]} i command=""
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    # The command is the first word after gpuvet and its own options (--data DIR).
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --data) ((i++)) ;;
            -*) ;;
            *) command=${COMP_WORDS[i]}; break ;;
        esac
    done
    case $prev in
        --data|--sysroot|--data-dir|--dir|--images)
            COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --lang)
            COMPREPLY=($(compgen -W "$(_gpuvet_langs "$gpuvet")" -- "$cur")); return ;;
        --gpus)
            COMPREPLY=($(compgen -W "$(_gpuvet_gpu_ids "$gpuvet")" -- "$cur")); return ;;
        --model)
            COMPREPLY=($(compgen -W "$(_gpuvet_model_ids "$gpuvet")" -- "$cur")); return ;;
        --workload|-w)
            COMPREPLY=($(compgen -W "$("$gpuvet" --lang en explain --help 2>/dev/null | sed -n 's/^workloads: //p')" -- "$cur"))
            return ;;
        --precision|--weights|--kv|--zero|--offload|--recompute|--attention|--nodes|--sample|--seconds|--cpu|\
        --tolerance)
            return ;;
    esac
    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$(_gpuvet_options "$gpuvet")" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$("$gpuvet" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p') help" -- "$cur"))
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpuvet_options "$gpuvet" "$command")" -- "$cur"))
        return
    fi
    case $command in
        explain)
            COMPREPLY=($(compgen -W "$("$gpuvet" audit --list-rules 2>/dev/null | cut -d' ' -f1)
                                     $("$gpuvet" --lang en explain --help 2>/dev/null | sed -n 's/^workloads: //p')" -- "$cur")) ;;
        help)
            COMPREPLY=($(compgen -W "$("$gpuvet" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')" -- "$cur")) ;;
        bench)
            COMPREPLY=($(compgen -W "$("$gpuvet" --lang en bench --help 2>/dev/null |
                                     sed -n 's/^usage: gpuvet bench \[\([a-z|]*\)\].*/\1/p' | tr '|' ' ')" -- "$cur")) ;;
        snapshot)
            COMPREPLY=($(compgen -d -- "$cur")) ;;
        gpus)
            COMPREPLY=($(compgen -W "$(_gpuvet_gpu_ids "$gpuvet")" -- "$cur")) ;;
        *)
            COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -o filenames -F _gpuvet gpuvet
